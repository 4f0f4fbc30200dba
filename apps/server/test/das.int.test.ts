import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TDsiEntry, TDsiRevision, TPackageManifest, TPage } from '@manifold/contract';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { uploadDesignFile } from './helpers/licensing-fixtures.js';
import { multipartForm } from './helpers/multipart.js';
import { createPackage, provisionServer } from './helpers/packages-fixtures.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const BOM = '\uFEFF';
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** A design package file as another instance's `das/fetch` answers it (the manifest built elsewhere). */
function designPackage(overrides: Partial<TPackageManifest> = {}, entry: Record<string, unknown> = {}) {
  const manifest: TPackageManifest = {
    manifestVersion: 1,
    dsiId: randomUUID(),
    dsiVersion: 3,
    packageVersion: 7,
    designName: 'Turbine blade',
    description: 'Cooling channels',
    companyName: 'Northwind Aero',
    multiPlaten: true,
    dateCreated: '2026-10-01T08:00:00.000Z',
    manageUrl: 'https://manage.northwind.example',
    files: [],
    steps: [],
    deviceTemplates: [],
    ...overrides,
  };
  const text = canonicalJson(manifest);
  return {
    manifest: manifest,
    document: {
      version: manifest.packageVersion,
      dsiVersion: manifest.dsiVersion,
      dsiId: manifest.dsiId,
      designName: manifest.designName,
      dateCreated: manifest.dateCreated,
      publicKeySN: '5a3f01',
      companyName: manifest.companyName,
      keyRoleSN: '77e2',
      description: manifest.description,
      multiPlaten: manifest.multiPlaten,
      displayImage: 'blade.png',
      protectUserName: 'designer@northwind',
      image_url: 'https://das.northwind.example/images/blade.png',
      dsi_url: 'https://das.northwind.example/dsi/blade',
      manage_url: 'https://manage.northwind.example',
      revisionId: randomUUID(),
      digestMethod: 'SHA-256',
      digestValue: sha256(text),
      signature: 'eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl',
      manifest: text,
      ...entry,
    },
  };
}

function upload(ctx: TestApp, content: string | Buffer, token?: string) {
  const form = multipartForm({ file: { filename: 'blade.dsi.json', content, contentType: 'application/json' } });
  return ctx.call('POST', '/ui/das/upload', { ...(token ? { token } : {}), body: form.body, headers: form.headers });
}

async function archiveState(ctx: TestApp) {
  const db = ctx.app.services.database.db;
  const rows = await db.selectFrom('das_entries').select('storage_key').execute();
  const keys: string[] = [];
  for await (const object of ctx.app.services.storage.list()) keys.push(object.key);
  return { rows: rows.length, keys: keys.sort() };
}

describeEachDatabase('design archive uploads (das/upload)', (ctx) => {
  let admin: string;
  let user: string;

  beforeAll(async () => {
    admin = await ctx().adminToken();
    user = (await ctx().createUser()).token;
  });

  it('needs an admin session', async () => {
    expectToken(await upload(ctx(), '{}'), 401, 'invalidSessionToken');
    expectToken(await upload(ctx(), '{}', user), 403, 'actionNotAllowed');
  });

  it('answers storageNotEnabled before a storage provider is selected, storing nothing', async () => {
    expectToken(await upload(ctx(), JSON.stringify(designPackage().document), admin), 420, 'storageNotEnabled');
    expect((await archiveState(ctx())).rows).toBe(0);
  });

  describe('with storage enabled', () => {
    beforeAll(async () => {
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } });
      expect(selected.statusCode, selected.body).toBe(200);
    });

    it('stores the package file through the provider and lists its DSI entry, read from the package, audited', async () => {
      const { manifest, document } = designPackage();
      const bytes = JSON.stringify(document);
      const response = await upload(ctx(), bytes, admin);
      expect(response.statusCode, response.body).toBe(200);
      const entry = response.json<TDsiEntry>();
      expect(entry).toMatchObject({
        version: 7,
        dsiVersion: 3,
        dsiId: manifest.dsiId,
        designName: 'Turbine blade',
        description: 'Cooling channels',
        companyName: 'Northwind Aero',
        multiPlaten: true,
        publicKeySN: '5a3f01',
        keyRoleSN: '77e2',
        displayImage: 'blade.png',
        protectUserName: 'designer@northwind',
        image_url: 'https://das.northwind.example/images/blade.png',
        dsi_url: 'https://das.northwind.example/dsi/blade',
        manage_url: 'https://manage.northwind.example',
        digestMethod: 'SHA-256',
        digestValue: document.digestValue,
        signature: document.signature,
      });
      const row = await ctx()
        .app.services.database.db.selectFrom('das_entries')
        .selectAll()
        .where('id', '=', entry.revisionId)
        .executeTakeFirstOrThrow();
      expect(Number(row.size)).toBe(Buffer.byteLength(bytes));
      expect(row.sha256).toBe(sha256(bytes));
      const stored = await ctx().app.services.storage.get(row.storage_key);
      const chunks: Buffer[] = [];
      for await (const chunk of stored) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe(bytes);

      // das/fetch answers it with the exact manifest bytes, read back from the stored package
      const fetched = await ctx().call('GET', `/ui/das/fetch?revisionId=${entry.revisionId}`, { token: admin });
      expect(fetched.statusCode, fetched.body).toBe(200);
      expect(fetched.json()).toEqual({ ...entry, manifest: document.manifest });
      expectToken(
        await ctx().call('GET', `/ui/das/fetch?revisionId=${entry.revisionId}`, { token: user }),
        403,
        'actionNotAllowed',
      );

      const listed = await ctx().call('GET', `/ui/das/list?dsiId=${manifest.dsiId}`, { token: admin });
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json<TPage<TDsiEntry>>()).toMatchObject({ totalNumOfItems: 1, data: [entry] });

      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select(['actor', 'details'])
        .where('event_type', '=', 'dasPackageUploaded')
        .where('subject', '=', manifest.dsiId)
        .execute();
      expect(audit.map((record) => [record.actor, JSON.parse(record.details ?? '{}')])).toEqual([
        [
          'admin',
          {
            dsiVersion: 3,
            designName: 'Turbine blade',
            digestValue: document.digestValue,
            size: row.size === null ? 0 : Number(row.size),
            sha256: row.sha256,
          },
        ],
      ]);
    });

    it('takes the fields the manifest holds from the manifest, the manage URL from it when the file names none', async () => {
      const { manifest, document } = designPackage(
        {},
        { designName: 'Not this', dsiVersion: 99, manage_url: null, keyRoleSN: null },
      );
      const entry = (await upload(ctx(), JSON.stringify(document), admin)).json<TDsiEntry>();
      expect(entry).toMatchObject({
        designName: 'Turbine blade',
        dsiVersion: 3,
        dsiId: manifest.dsiId,
        manage_url: manifest.manageUrl,
        keyRoleSN: null,
      });
    });

    it('lists uploaded entries with built revisions, newest first, paged and filtered by dsiId', async () => {
      await provisionServer(ctx());
      const pkg = await createPackage(ctx());
      await uploadDesignFile(ctx(), pkg.dsiId, randomBytes(256), true);
      const built = await ctx().call('POST', '/ui/package/build', { token: admin, body: { dsiId: pkg.dsiId } });
      expect(built.statusCode, built.body).toBe(200);
      const later = designPackage();
      expect((await upload(ctx(), JSON.stringify(later.document), admin)).statusCode).toBe(200);

      const first = (await ctx().call('GET', '/ui/das/list?numberOfItems=2', { token: admin })).json<TPage<TDsiEntry>>();
      expect(first.totalNumOfItems).toBe(4);
      expect(first.totalNumOfPages).toBe(2);
      expect(first.data.map((entry) => entry.dsiId)).toEqual([later.manifest.dsiId, pkg.dsiId]);
      const second = (await ctx().call('GET', '/ui/das/list?numberOfItems=2&pageNum=2', { token: admin })).json<
        TPage<TDsiEntry>
      >();
      expect(second.data).toHaveLength(2);
      const builtOnly = (await ctx().call('GET', `/ui/das/list?dsiId=${pkg.dsiId}`, { token: admin })).json<TPage<TDsiEntry>>();
      expect(builtOnly.data).toEqual([built.json()]);

      // a revision built here, exported with das/fetch, is already in the archive
      const revisionId = built.json<TDsiEntry>().revisionId;
      const exported = (await ctx().call('GET', `/ui/das/fetch?revisionId=${revisionId}`, { token: admin })).json<TDsiRevision>();
      const before = await archiveState(ctx());
      expectToken(await upload(ctx(), JSON.stringify(exported), admin), 420, 'dasEntryExists', 'file');
      expect(await archiveState(ctx())).toEqual(before);
    });

    it('refuses the same DSI version twice (dasEntryExists), storing nothing the second time', async () => {
      const { document } = designPackage();
      expect((await upload(ctx(), JSON.stringify(document), admin)).statusCode).toBe(200);
      const before = await archiveState(ctx());
      expectToken(await upload(ctx(), JSON.stringify(document), admin), 420, 'dasEntryExists', 'file');
      expect(await archiveState(ctx())).toEqual(before);
    });

    it.each([
      ['not JSON', () => 'PK\u0003\u0004 a zip?', 'not JSON'],
      ['no manifest', () => JSON.stringify({ ...designPackage().document, manifest: undefined }), 'manifest'],
      [
        'a manifest other than its digest',
        () => JSON.stringify({ ...designPackage().document, digestValue: sha256('other') }),
        'digestValue',
      ],
      [
        'a manifest that is not one',
        () => {
          const text = JSON.stringify({ hello: 'world' });
          return JSON.stringify({ ...designPackage().document, manifest: text, digestValue: sha256(text) });
        },
        'manifest.',
      ],
      ['a DSI ID that is not one', () => JSON.stringify(designPackage({ dsiId: '../../etc' }).document), 'dsiId'],
      ['a script URL', () => JSON.stringify(designPackage({}, { image_url: 'javascript:alert(1)' }).document), 'image_url'],
      ['another digest method', () => JSON.stringify(designPackage({}, { digestMethod: 'MD5' }).document), 'digestMethod'],
    ])('refuses %s with dasPackageInvalid, storing nothing', async (_name, content, hint) => {
      const before = await archiveState(ctx());
      const refused = expectToken(await upload(ctx(), content(), admin), 420, 'dasPackageInvalid', 'file');
      expect(refused.errorDescription).toContain(hint);
      expect(await archiveState(ctx())).toEqual(before);
    });

    it('reads a package file starting with one UTF-8 byte order mark as without it; two are not JSON', async () => {
      const { manifest, document } = designPackage();
      const response = await upload(ctx(), BOM + JSON.stringify(document), admin);
      expect(response.statusCode, response.body).toBe(200);
      const entry = response.json<TDsiEntry>();
      const { manifest: manifestText, ...fields } = document;
      expect(entry).toEqual({ ...fields, revisionId: entry.revisionId, dateCreated: entry.dateCreated });
      expect(entry.dsiId).toBe(manifest.dsiId);
      // the file is kept as sent: das/fetch reads it back, the mark skipped again
      const fetched = await ctx().call('GET', `/ui/das/fetch?revisionId=${entry.revisionId}`, { token: admin });
      expect(fetched.statusCode, fetched.body).toBe(200);
      expect(fetched.json()).toEqual({ ...entry, manifest: manifestText });
      const listed = await ctx().call('GET', `/ui/das/list?dsiId=${manifest.dsiId}`, { token: admin });
      expect(listed.json<TPage<TDsiEntry>>()).toMatchObject({ totalNumOfItems: 1, data: [entry] });

      const before = await archiveState(ctx());
      const twice = expectToken(
        await upload(ctx(), BOM + BOM + JSON.stringify(designPackage().document), admin),
        420,
        'dasPackageInvalid',
        'file',
      );
      expect(twice.errorDescription).toContain('not JSON');
      expect(await archiveState(ctx())).toEqual(before);
    });

    it('holds the values of a package file, its manifest too, to what a JSON body is held to, storing nothing', async () => {
      const before = await archiveState(ctx());
      // escaped in the JSON text, a NUL is plain text until parsed: it was stored (PostgreSQL refuses it: 500)
      const nul = expectToken(
        await upload(ctx(), JSON.stringify(designPackage({}, { displayImage: 'blade\u0000.png' }).document), admin),
        400,
        'malformedRequest',
      );
      expect(nul.errorDescription).toBe('file.displayImage contains a NUL character');
      expectToken(
        // the file's own designName is clean: the manifest's is the one read
        await upload(
          ctx(),
          JSON.stringify(designPackage({ designName: 'Turbine\u0001blade' }, { designName: 'Turbine blade' }).document),
          admin,
        ),
        420,
        'invalidCharacters',
        'file.manifest.designName',
      );
      expect(await archiveState(ctx())).toEqual(before);
    });

    it('refuses a file over 16 MiB with 413 payloadTooLarge and a form without a file', async () => {
      const before = await archiveState(ctx());
      expectToken(await upload(ctx(), Buffer.alloc(16 * 1024 * 1024 + 1, 32), admin), 413, 'payloadTooLarge');
      expect(await archiveState(ctx())).toEqual(before);
      const form = multipartForm({ note: 'no file' });
      expectToken(
        await ctx().call('POST', '/ui/das/upload', { token: admin, body: form.body, headers: form.headers }),
        420,
        'uploadFileMissing',
      );
    });
  });
});
