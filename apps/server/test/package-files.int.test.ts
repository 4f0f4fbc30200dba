import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TPackage, TPackageDetail, TPackageFile } from '@manifold/contract';
import { multipartForm } from './helpers/multipart.js';
import { createPackage, onePixelPng, provisionServer, threeMfWithThumbnail, uploadForm } from './helpers/packages-fixtures.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';
import { zipArchive } from './helpers/zip-archive.js';
import { PackagesRepository } from '../src/modules/packages/packages.repository.js';

const uuid = '00000000-0000-4000-8000-000000000000';
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Every stored object and every in-flight temporary file under DATA_DIR/storage. */
async function storageFiles(ctx: TestApp): Promise<{ objects: string[]; temporary: string[] }> {
  const root = path.join(ctx.config.dataDir, 'storage');
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
  const isTemporary = (file: string) => file.startsWith(`tmp${path.sep}`);
  return { objects: files.filter((file) => !isTemporary(file)), temporary: files.filter(isTemporary) };
}

/** The app's address, listening on a free port (started once per app). */
async function listening(ctx: TestApp): Promise<string> {
  const address = ctx.app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  return ctx.app.listen({ port: 0, host: '127.0.0.1' });
}

async function storedBytes(ctx: TestApp, fileId: string): Promise<Buffer> {
  const row = await ctx.app.services.database.db
    .selectFrom('package_files')
    .select('storage_key')
    .where('id', '=', fileId)
    .executeTakeFirstOrThrow();
  return fs.readFile(path.join(ctx.config.dataDir, 'storage', row.storage_key.slice(0, 2), row.storage_key));
}

/** Waits until the server writes an upload to a new temporary file (it is streaming one). */
async function untilNewTemporaryFile(app: TestApp, known: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await storageFiles(app)).temporary.every((file) => known.includes(file))) {
    if (Date.now() > deadline) throw new Error('no upload reached the storage within 30 seconds');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Waits until the storage has had no temporary file for two seconds running: under load the
 * server may begin an abandoned upload late, so one empty look proves nothing.
 */
async function untilNoTemporaryFiles(app: TestApp): Promise<void> {
  const deadline = Date.now() + 60_000;
  let emptySince = Date.now();
  while (Date.now() - emptySince < 2000) {
    if (Date.now() > deadline) throw new Error('temporary upload files stayed behind for a minute');
    if ((await storageFiles(app)).temporary.length > 0) emptySince = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function upload(
  ctx: TestApp,
  dsiId: string,
  content: Buffer | string,
  options: { isPublic?: boolean; filename?: string; token?: string } = {},
) {
  return uploadForm(ctx, '/ui/package/files/upload', options.token ?? (await ctx.adminToken()), {
    dsiId,
    isPublic: String(options.isPublic ?? true),
    file: { filename: options.filename ?? 'part.stl', content, contentType: 'model/stl' },
  });
}

async function download(ctx: TestApp, fileId: string, token?: string) {
  return ctx.call('GET', `/ui/package/files/download?fileId=${fileId}`, { token: token ?? (await ctx.adminToken()) });
}

async function fileRows(ctx: TestApp, dsiId: string) {
  return ctx.app.services.database.db.selectFrom('package_files').selectAll().where('package_id', '=', dsiId).execute();
}

/** The package's file rows and the storage, before uploads that must leave nothing behind. */
async function uploadTraces(ctx: TestApp, dsiId: string) {
  return { rows: (await fileRows(ctx, dsiId)).length, storage: await storageFiles(ctx) };
}

/** Once the server settled: no new file row, no new stored object, no temporary file. */
async function expectNothingLeftBehind(ctx: TestApp, dsiId: string, before: Awaited<ReturnType<typeof uploadTraces>>) {
  await untilNoTemporaryFiles(ctx);
  expect((await fileRows(ctx, dsiId)).length).toBe(before.rows);
  const after = await storageFiles(ctx);
  expect(after.objects.sort()).toEqual(before.storage.objects.sort());
  expect(after.temporary).toEqual([]);
}

async function auditCount(ctx: TestApp, type: string, subject: string): Promise<number> {
  const rows = await ctx.app.services.database.db
    .selectFrom('audit_events')
    .select('id')
    .where('event_type', '=', type)
    .where('subject', '=', subject)
    .execute();
  return rows.length;
}

describeEachDatabase('package files', (ctx) => {
  let pkg: TPackage;
  beforeAll(async () => {
    pkg = await createPackage(ctx());
  });

  it('refuses a private upload before the server has an encryption certificate, storing nothing', async () => {
    expectToken(await upload(ctx(), pkg.dsiId, 'secret', { isPublic: false }), 420, 'provisionNotInitialized');
    expect(await fileRows(ctx(), pkg.dsiId)).toHaveLength(0);
  });

  describe('POST /ui/package/files/upload', () => {
    it('streams a multi-megabyte public file to storage with its SHA-256 and serves it back', async () => {
      const content = randomBytes(6 * 1024 * 1024 + 123);
      const response = await upload(ctx(), pkg.dsiId, content, { filename: 'big part.stl' });
      expect(response.statusCode, response.body).toBe(200);
      const file = response.json<TPackageFile>();
      expect(file).toMatchObject({
        dsiId: pkg.dsiId,
        fileName: 'big part.stl',
        contentType: 'model/stl',
        size: content.length,
        sha256: sha256(content),
        isPublic: true,
      });
      expect((await storedBytes(ctx(), file.fileId)).equals(content)).toBe(true);

      const { token } = await ctx().createUser();
      const fetched = await download(ctx(), file.fileId, token);
      expect(fetched.statusCode).toBe(200);
      expect(fetched.headers['content-length']).toBe(String(content.length));
      expect(fetched.headers['content-type']).toBe('application/octet-stream');
      expect(fetched.headers['content-disposition']).toBe(`attachment; filename="big part.stl"; filename*=UTF-8''big%20part.stl`);
      expect(sha256(fetched.rawPayload)).toBe(sha256(content));
      expect(await auditCount(ctx(), 'publicFileAccessed', pkg.dsiId)).toBe(1);
    });

    it('keeps the original name as data only', async () => {
      const response = await upload(ctx(), pkg.dsiId, 'x', { filename: '../../etc/pa\\ss\u00e9;x.stl' });
      const file = response.json<TPackageFile>();
      expect(file.fileName).toBe('ss\u00e9;x.stl');
      const row = (await fileRows(ctx(), pkg.dsiId)).find((r) => r.id === file.fileId)!;
      expect(row.storage_key).toMatch(/^[a-f0-9]{32}$/);
      expect((await download(ctx(), file.fileId)).headers['content-disposition']).toBe(
        `attachment; filename="ss_;x.stl"; filename*=UTF-8''ss%C3%A9%3Bx.stl`,
      );
    });

    it('answers the upload tokens', async () => {
      const token = await ctx().adminToken();
      const fileFirst = multipartForm({ file: { filename: 'a.stl', content: 'x' }, dsiId: pkg.dsiId, isPublic: 'true' });
      expectToken(await ctx().call('POST', '/ui/package/files/upload', { token, ...fileFirst }), 420, 'packageFileFieldsFirst');
      expectToken(
        await uploadForm(ctx(), '/ui/package/files/upload', token, { dsiId: pkg.dsiId, isPublic: 'true' }),
        420,
        'uploadFileMissing',
      );
      expectToken(await upload(ctx(), uuid, 'x'), 420, 'packageNotPresent');
      expectToken(
        await uploadForm(ctx(), '/ui/package/files/upload', token, {
          dsiId: pkg.dsiId,
          isPublic: 'maybe',
          file: { filename: 'a', content: 'x' },
        }),
        400,
        'malformedRequest',
      );
      expectToken(
        await uploadForm(ctx(), '/ui/package/files/upload', token, {
          dsiId: 'nope',
          isPublic: 'true',
          file: { filename: 'a', content: 'x' },
        }),
        420,
        'packageNotPresent',
        'dsiId',
      );
      expectToken(
        await ctx().call('POST', '/ui/package/files/upload', { token, body: { dsiId: pkg.dsiId } }),
        400,
        'malformedRequest',
      );
    });

    it('leaves no file and no row when the upload is cut off halfway', async () => {
      const before = await uploadTraces(ctx(), pkg.dsiId);
      const { body, headers } = multipartForm({
        dsiId: pkg.dsiId,
        isPublic: 'true',
        file: { filename: 'cut.stl', content: randomBytes(2 * 1024 * 1024) },
      });
      const cut = await ctx().call('POST', '/ui/package/files/upload', {
        token: await ctx().adminToken(),
        body: body.subarray(0, body.length / 2),
        headers,
      });
      expectToken(cut, 400, 'malformedRequest');

      // A client that goes away mid-upload, over a real connection.
      const url = new URL(await listening(ctx()));
      const socket = net.connect(Number(url.port), url.hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      const head = [
        'POST /ui/package/files/upload HTTP/1.1',
        `Host: ${url.host}`,
        `Authorization: Bearer ${await ctx().adminToken()}`,
        `Content-Type: ${headers['content-type']}`,
        `Content-Length: ${body.length}`,
        '',
        '',
      ].join('\r\n');
      const known = (await storageFiles(ctx())).temporary;
      socket.write(head);
      socket.write(body.subarray(0, body.length / 2));
      // gone mid-upload: once the server is streaming the file to storage
      await untilNewTemporaryFile(ctx(), known);
      socket.destroy();

      // The server may start on the request only after the client gave up: wait until it settled.
      await expectNothingLeftBehind(ctx(), pkg.dsiId, before);
    });

    it('leaves nothing behind when clients go away at once, before the form is even read', async () => {
      const before = await uploadTraces(ctx(), pkg.dsiId);
      const { body, headers } = multipartForm({
        dsiId: pkg.dsiId,
        isPublic: 'false',
        file: { filename: 'gone.stl', content: randomBytes(1024 * 1024) },
      });
      const url = new URL(await listening(ctx()));
      const token = await ctx().adminToken();
      for (let i = 0; i < 5; i += 1) {
        const socket = net.connect(Number(url.port), url.hostname);
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(
          [
            'POST /ui/package/files/upload HTTP/1.1',
            `Host: ${url.host}`,
            `Authorization: Bearer ${token}`,
            `Content-Type: ${headers['content-type']}`,
            `Content-Length: ${body.length}`,
            '',
            '',
          ].join('\r\n'),
        );
        socket.write(body.subarray(0, (body.length * (i + 1)) / 8));
        socket.destroy();
      }
      await expectNothingLeftBehind(ctx(), pkg.dsiId, before);
      // the server still answers uploads normally
      const ok = await upload(ctx(), pkg.dsiId, randomBytes(1024), { filename: 'after.stl' });
      expect(ok.statusCode).toBe(200);
    });

    it('makes the thumbnail of a public 3MF the display image of a package that has none', async () => {
      const target = await createPackage(ctx());
      const thumbnail = Buffer.concat([onePixelPng]);
      const response = await upload(ctx(), target.dsiId, threeMfWithThumbnail(thumbnail), { filename: 'bracket.3mf' });
      expect(response.statusCode, response.body).toBe(200);
      const detail = (
        await ctx().call('GET', `/ui/package/fetch?dsiId=${target.dsiId}`, { token: await ctx().adminToken() })
      ).json<TPackageDetail>();
      expect(detail.displayImage).toMatch(/^[a-f0-9]{32}\.png$/);
      expect(detail.version).toBe(1);
      const image = await ctx().call('GET', `/ui/package/image/${detail.displayImage}`, { token: await ctx().adminToken() });
      expect(image.rawPayload.equals(thumbnail)).toBe(true);
      await upload(ctx(), target.dsiId, threeMfWithThumbnail(), { filename: 'other.3mf' });
      const again = (
        await ctx().call('GET', `/ui/package/fetch?dsiId=${target.dsiId}`, { token: await ctx().adminToken() })
      ).json<TPackageDetail>();
      expect(again.displayImage).toBe(detail.displayImage);
    });
    it.each([
      ['an empty relationships part', [{ name: '_rels/.rels', data: Buffer.alloc(0) }]],
      ['an empty thumbnail', [{ name: 'Metadata/thumbnail.png', data: Buffer.alloc(0) }]],
    ])('stores a public 3MF with %s (no display image, never a 500)', async (_case, entries) => {
      const target = await createPackage(ctx());
      const response = await upload(ctx(), target.dsiId, zipArchive(entries), { filename: 'empty-parts.3mf' });
      expect(response.statusCode, response.body).toBe(200);
      const detail = (
        await ctx().call('GET', `/ui/package/fetch?dsiId=${target.dsiId}`, { token: await ctx().adminToken() })
      ).json<TPackageDetail>();
      expect(detail.displayImage).toBeNull();
      expect(detail.files.map((file) => file.fileName)).toEqual(['empty-parts.3mf']);
    });

    it('stores a file whose content type is as long as a form may send (never a 500)', async () => {
      const before = await uploadTraces(ctx(), pkg.dsiId);
      const response = await uploadForm(ctx(), '/ui/package/files/upload', await ctx().adminToken(), {
        dsiId: pkg.dsiId,
        isPublic: 'true',
        file: { filename: 'long-type.bin', content: 'x', contentType: `${'a'.repeat(64)}/${'b'.repeat(64)}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      const file = response.json<TPackageFile>();
      expect(file.contentType.length).toBeLessThanOrEqual(128);
      expect((await fileRows(ctx(), pkg.dsiId)).length).toBe(before.rows + 1);
      expect((await download(ctx(), file.fileId)).statusCode).toBe(200);
    });

    it('has no HEAD download (it would record an access that hands nothing out)', async () => {
      const file = (await upload(ctx(), pkg.dsiId, 'x', { filename: 'head.stl' })).json<TPackageFile>();
      const response = await ctx().app.inject({
        method: 'HEAD',
        url: `/ui/package/files/download?fileId=${file.fileId}`,
        headers: { authorization: `Bearer ${await ctx().adminToken()}` },
      });
      expect(response.statusCode).toBe(404);
      const accesses = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select('details')
        .where('event_type', '=', 'publicFileAccessed')
        .where('subject', '=', pkg.dsiId)
        .execute();
      expect(accesses.filter((row) => JSON.stringify(row.details).includes(file.fileId))).toEqual([]);
    });
  });

  describe('private files', () => {
    let privateFile: TPackageFile;
    const secret = randomBytes(3 * 1024 * 1024 + 7);
    beforeAll(async () => {
      await provisionServer(ctx());
      const response = await upload(ctx(), pkg.dsiId, secret, { isPublic: false, filename: 'secret.3mf' });
      expect(response.statusCode, response.body).toBe(200);
      privateFile = response.json<TPackageFile>();
    });

    it('stores the file (public or made public later) and answers 200, never a 500 after the row', async () => {
      const target = await createPackage(ctx());
      const token = await ctx().adminToken();
      const bad = threeMfWithThumbnail(onePixelPng, '/Metadata/thumb%ZZnail.png');
      const response = await upload(ctx(), target.dsiId, bad, { filename: 'bad-escape.3mf' });
      expect(response.statusCode, response.body).toBe(200);
      // the relationship names no part: the conventional thumbnail is used instead
      const detail = (await ctx().call('GET', `/ui/package/fetch?dsiId=${target.dsiId}`, { token })).json<TPackageDetail>();
      expect(detail.displayImage).toMatch(/^[a-f0-9]{32}\.png$/);

      const other = await createPackage(ctx());
      const sealed = await upload(ctx(), other.dsiId, bad, { filename: 'bad-escape.3mf', isPublic: false });
      expect(sealed.statusCode, sealed.body).toBe(200);
      const made = await ctx().call('POST', '/ui/package/files/privacy', {
        token,
        body: { fileId: sealed.json<TPackageFile>().fileId, isPublic: true },
      });
      expect(made.statusCode, made.body).toBe(200);
      expect(made.json<TPackageFile>().isPublic).toBe(true);
    });

    it('are encrypted at rest and decrypted on download for ADMIN only', async () => {
      expect(privateFile).toMatchObject({ isPublic: false, size: secret.length, sha256: sha256(secret) });
      const onDisk = await storedBytes(ctx(), privateFile.fileId);
      expect(onDisk.length).toBe(secret.length + 33);
      expect(onDisk.subarray(0, 4).toString()).toBe('MFDK');
      expect(onDisk.includes(secret.subarray(0, 64))).toBe(false);
      const row = (await fileRows(ctx(), pkg.dsiId)).find((r) => r.id === privateFile.fileId)!;
      expect(row.wrapped_key?.split('.')).toHaveLength(5);

      const fetched = await download(ctx(), privateFile.fileId);
      expect(fetched.statusCode).toBe(200);
      expect(sha256(fetched.rawPayload)).toBe(sha256(secret));
      expect(await auditCount(ctx(), 'privateFileDecrypted', pkg.dsiId)).toBe(1);
      const { token } = await ctx().createUser();
      expectToken(await download(ctx(), privateFile.fileId, token), 403, 'actionNotAllowed');
    });

    it('switch to public (decrypted in storage) and back to private (encrypted with a new key)', async () => {
      const token = await ctx().adminToken();
      const objectsBefore = (await storageFiles(ctx())).objects.length;
      const toPublic = await ctx().call('POST', '/ui/package/files/privacy', {
        token,
        body: { fileId: privateFile.fileId, isPublic: true },
      });
      expect(toPublic.statusCode, toPublic.body).toBe(200);
      expect(toPublic.json<TPackageFile>().isPublic).toBe(true);
      expect((await storedBytes(ctx(), privateFile.fileId)).equals(secret)).toBe(true);
      expect((await storageFiles(ctx())).objects.length).toBe(objectsBefore);
      const row = (await fileRows(ctx(), pkg.dsiId)).find((r) => r.id === privateFile.fileId)!;
      expect(row.wrapped_key).toBeNull();

      const toPrivate = await ctx().call('POST', '/ui/package/files/privacy', {
        token,
        body: { fileId: privateFile.fileId, isPublic: false },
      });
      expect(toPrivate.json<TPackageFile>()).toMatchObject({ isPublic: false, sha256: sha256(secret) });
      expect((await storedBytes(ctx(), privateFile.fileId)).subarray(0, 4).toString()).toBe('MFDK');
      expect(sha256((await download(ctx(), privateFile.fileId)).rawPayload)).toBe(sha256(secret));
      expect(await auditCount(ctx(), 'designPackageFilePrivacyChanged', pkg.dsiId)).toBe(2);
      expectToken(
        await ctx().call('POST', '/ui/package/files/privacy', { token, body: { fileId: uuid, isPublic: true } }),
        420,
        'packageFileNotPresent',
      );
    });

    it('abort the download instead of completing it when the stored file was tampered with', async () => {
      const row = (await fileRows(ctx(), pkg.dsiId)).find((r) => r.id === privateFile.fileId)!;
      const file = path.join(ctx().config.dataDir, 'storage', row.storage_key.slice(0, 2), row.storage_key);
      const bytes = await fs.readFile(file);
      bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
      await fs.writeFile(file, bytes);

      const address = await listening(ctx());
      const response = await fetch(`${address}/ui/package/files/download?fileId=${privateFile.fileId}`, {
        headers: { authorization: `Bearer ${await ctx().adminToken()}` },
      });
      expect(response.status).toBe(200);
      await expect(response.arrayBuffer()).rejects.toThrow();

      expectToken(
        await ctx().call('POST', '/ui/package/files/privacy', {
          token: await ctx().adminToken(),
          body: { fileId: privateFile.fileId, isPublic: true },
        }),
        420,
        'packageFileCorrupted',
      );
      expect((await fs.readFile(file)).equals(bytes)).toBe(true);
      expect((await storageFiles(ctx())).temporary).toEqual([]);
    });

    describe('while a build is running', () => {
      /**
       * Holds a build inside its transaction, after it read the package's files and before it
       * writes the revision, while `change` runs; then lets both finish.
       */
      async function duringBuild(dsiId: string, change: () => Promise<{ statusCode: number; body: string }>) {
        const token = await ctx().adminToken();
        const original = PackagesRepository.prototype.insertRevision;
        let reached!: () => void;
        const reachedInsert = new Promise<void>((resolve) => (reached = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        PackagesRepository.prototype.insertRevision = async function (this: PackagesRepository, ...args) {
          reached();
          await released;
          return original.apply(this, args);
        };
        try {
          const build = ctx().call('POST', '/ui/package/build', { token, body: { dsiId } });
          await reachedInsert;
          const changed = change();
          await new Promise((resolve) => setTimeout(resolve, 500));
          release();
          const [built, answer] = await Promise.all([build, changed]);
          expect(built.statusCode, built.body).toBe(200);
          expect(answer.statusCode, answer.body).toBe(200);
        } finally {
          release();
          PackagesRepository.prototype.insertRevision = original;
        }
      }

      /** Every stored object a revision of the package names is still in storage. */
      async function expectRevisionObjectsKept(dsiId: string) {
        const rows = await ctx()
          .app.services.database.db.selectFrom('revision_files')
          .innerJoin('package_revisions', 'package_revisions.id', 'revision_files.revision_id')
          .select('revision_files.storage_key')
          .where('package_revisions.package_id', '=', dsiId)
          .execute();
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) expect(await ctx().app.services.storage.exists(row.storage_key)).toBe(true);
      }

      it('keeps the stored object of a file deleted meanwhile: the revision names it', async () => {
        const target = await createPackage(ctx());
        const file = (await upload(ctx(), target.dsiId, 'frozen', { filename: 'frozen.stl' })).json<TPackageFile>();
        await duringBuild(target.dsiId, async () =>
          ctx().call('POST', '/ui/package/files/delete', { token: await ctx().adminToken(), body: { fileId: file.fileId } }),
        );
        await expectRevisionObjectsKept(target.dsiId);
      });

      it('keeps the stored object of a file made private meanwhile: the revision names it', async () => {
        const target = await createPackage(ctx());
        const file = (await upload(ctx(), target.dsiId, 'frozen', { filename: 'switched.stl' })).json<TPackageFile>();
        await duringBuild(target.dsiId, async () =>
          ctx().call('POST', '/ui/package/files/privacy', {
            token: await ctx().adminToken(),
            body: { fileId: file.fileId, isPublic: false },
          }),
        );
        await expectRevisionObjectsKept(target.dsiId);
      });
    });
  });

  describe('POST /ui/package/files/delete', () => {
    it('deletes the row and its stored object', async () => {
      const file = (await upload(ctx(), pkg.dsiId, 'to delete')).json<TPackageFile>();
      const key = (await fileRows(ctx(), pkg.dsiId)).find((r) => r.id === file.fileId)!.storage_key;
      const response = await ctx().call('POST', '/ui/package/files/delete', {
        token: await ctx().adminToken(),
        body: { fileId: file.fileId },
      });
      expect(response.statusCode).toBe(200);
      expect(await ctx().app.services.storage.exists(key)).toBe(false);
      expectToken(
        await ctx().call('POST', '/ui/package/files/delete', { token: await ctx().adminToken(), body: { fileId: file.fileId } }),
        420,
        'packageFileNotPresent',
      );
      expectToken(await download(ctx(), file.fileId), 420, 'packageFileNotPresent');
    });
  });
});

describeEachDatabase(
  'package files over the size limit',
  (ctx) => {
    it('are refused with 413 and leave no file and no row', async () => {
      const pkg = await createPackage(ctx());
      const response = await upload(ctx(), pkg.dsiId, randomBytes(1024 * 1024 + 1));
      expectToken(response, 413, 'payloadTooLarge');
      expect(await fileRows(ctx(), pkg.dsiId)).toHaveLength(0);
      const files = await storageFiles(ctx());
      expect(files).toEqual({ objects: [], temporary: [] });
      expect((await upload(ctx(), pkg.dsiId, randomBytes(1024 * 1024))).statusCode).toBe(200);
    });
  },
  { UPLOAD_MAX_BYTES: String(1024 * 1024) },
);
