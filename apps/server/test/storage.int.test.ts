import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TPage, TStorageFile, TStorageProvider, TStorageType } from '@manifold/contract';
import { jobsModule } from '../src/jobs/jobs.module.js';
import { AzureStorage } from '../src/storage/azure-storage.js';
import { S3Storage } from '../src/storage/s3-storage.js';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageProvider } from '../src/storage/storage.js';
import { licensingWorld, type LicensingWorld } from './helpers/licensing-fixtures.js';
import { type FormFile, multipartEntries, multipartForm } from './helpers/multipart.js';
import { createPackage, onePixelPng } from './helpers/packages-fixtures.js';
import { startStorageEmulators, type StorageEmulators } from './helpers/storage-emulators.js';
import { countRows, describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const MAX = 1024 * 1024;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let emulators: StorageEmulators;
beforeAll(async () => {
  emulators = await startStorageEmulators();
});
afterAll(async () => {
  await emulators?.stop();
});

async function keysOf(provider: Pick<StorageProvider, 'list'>): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of provider.list()) keys.push(object.key);
  return keys.sort();
}

type UploadForm = Record<string, string | { filename: string; content: Buffer; contentType?: string }>;

/** Every upload route this server has for a console user, each with a form it would store. */
function uploadRoutes(
  at: { dsiId: string; folderId: string; deviceId: string },
  file: (filename: string) => { filename: string; content: Buffer },
): [string, UploadForm][] {
  return [
    ['/ui/storage/dsi/upload', { file: file('typed.bin') }],
    ['/ui/das/upload', { file: file('package.json') }],
    ['/ui/package/files/upload', { dsiId: at.dsiId, isPublic: 'true', file: file('public.stl') }],
    ['/ui/package/files/upload', { dsiId: at.dsiId, isPublic: 'false', file: file('private.3mf') }],
    ['/ui/secure-repo/upload', { nodeId: at.folderId, file: file('secret.pdf') }],
    ['/ui/storage/dtl/upload', { deviceId: at.deviceId, file: file('log.csv') }],
  ];
}

/** The rows of the tables an upload writes, counted. */
async function uploadRowCounts(app: TestApp) {
  const tables = ['storage_files', 'das_entries', 'package_files', 'secure_repo_nodes', 'dtls', 'images'] as const;
  return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await countRows(app, table)] as const)));
}

describeEachDatabase(
  'storage settings, typed storage and DAS',
  (ctx) => {
    let admin: string;
    let user: string;
    let place: Awaited<ReturnType<StorageEmulators['createPlace']>>;
    const upload = (app: TestApp, type: string, filename: string, content: string | Buffer, token: string) => {
      const form = multipartForm({ file: { filename, content, contentType: 'application/octet-stream' } });
      return app.call('POST', `/ui/storage/${type}/upload`, { token, body: form.body, headers: form.headers });
    };
    const runJobs = () => jobsModule(ctx().app.services, quiet).runner.runDue();

    beforeAll(async () => {
      admin = await ctx().adminToken();
      user = (await ctx().createUser()).token;
      place = await emulators.createPlace(`manifold-${ctx().kind}`);
    });

    describe('access', () => {
      it.each([
        ['GET', '/ui/admin/storage/provider'],
        ['POST', '/ui/admin/storage/provider'],
        ['GET', '/ui/admin/storage/provider/list'],
        ['GET', '/ui/admin/storage/type/list'],
        ['POST', '/ui/admin/storage/type/list'],
        ['GET', '/ui/admin/storage/type?name=dsi'],
        ['POST', '/ui/admin/das'],
      ] as const)('%s %s needs an admin session', async (method, url) => {
        expectToken(await ctx().call(method, url, { body: {} }), 401, 'invalidSessionToken');
        expectToken(await ctx().call(method, url, { token: user, body: {} }), 403, 'actionNotAllowed');
      });

      it.each([
        ['GET', '/ui/storage/dsi/list'],
        ['POST', '/ui/storage/dsi/upload'],
        ['POST', '/ui/storage/dtl2/upload'],
        ['GET', '/ui/storage/dsi/fetch/a.bin'],
        ['GET', '/ui/admin/das'],
      ] as const)('%s %s needs a session', async (method, url) => {
        expectToken(await ctx().call(method, url), 401, 'invalidSessionToken');
      });
    });

    it('answers no provider at first, and typed storage is not enabled', async () => {
      const provider = await ctx().call('GET', '/ui/admin/storage/provider', { token: admin });
      expect(provider.json()).toEqual({ identifier: null, configured: false, credentials: null, move: null });
      expect((await ctx().call('GET', '/ui/admin/storage/provider/list', { token: admin })).json()).toEqual({
        data: ['local', 'aws', 'azure'],
      });
      expectToken(await ctx().call('GET', '/ui/storage/dsi/list', { token: user }), 420, 'storageNotEnabled');
      expectToken(await upload(ctx(), 'dsi', 'a.bin', 'x', user), 420, 'storageNotEnabled');
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: expect.any(String) });
    });

    it('checks the provider before accepting it', async () => {
      const select = (body: unknown) => ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body });
      expectToken(await select({}), 420, 'storageProviderNotSelected', 'identifier');
      expectToken(await select({ identifier: 'ftp' }), 420, 'storageProviderConfigurationNotValid', 'identifier');
      const { awsStorageBucket: _bucket, ...noBucket } = place.s3Credentials;
      expectToken(
        await select({ identifier: 'aws', credentials: noBucket }),
        420,
        'storageProviderConfigurationNotValid',
        'credentials.awsStorageBucket',
      );
      // the request's schema (400) names a credential as the provider's check (420) does
      expectToken(
        await select({ identifier: 'aws', credentials: { ...place.s3Credentials, awsStorageBucket: 'b'.repeat(64) } }),
        400,
        'malformedRequest',
        'credentials.awsStorageBucket',
      );
      expectToken(
        await select({ identifier: 'aws', credentials: { ...place.s3Credentials, awsStorageEndpoint: 'http://10.9.9.9:9000' } }),
        420,
        'storageProviderConfigurationNotValid',
        'credentials.awsStorageEndpoint',
      );
      expectToken(
        await select({ identifier: 'aws', credentials: { ...place.s3Credentials, awsStorageEndpoint: 'file:///etc' } }),
        420,
        'storageProviderConfigurationNotValid',
        'credentials.awsStorageEndpoint',
      );
      expectToken(
        await select({ identifier: 'aws', credentials: { ...place.s3Credentials, awsAccessKeyId: 'NOT-A-KEY' } }),
        420,
        'storageProviderConfigurationNotValid',
      );
      expectToken(
        await select({
          identifier: 'azure',
          credentials: { ...place.azureCredentials, azureAccountKey: Buffer.alloc(64, 1).toString('base64') },
        }),
        420,
        'storageProviderConfigurationNotValid',
      );
      expectToken(
        await select({ identifier: 'aws', credentials: { ...place.s3Credentials, awsStorageEndpoint: 'http://127.0.0.1:9' } }),
        420,
        'storageProviderNotAvailable',
      );
      expect((await ctx().call('GET', '/ui/admin/storage/provider', { token: admin })).json()).toMatchObject({
        configured: false,
      });
    });

    it('selects the local disk, which enables storage and completes the storage setup step', async () => {
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } });
      expect(selected.statusCode, selected.body).toBe(200);
      expect(selected.json()).toEqual({ identifier: 'local', configured: true, credentials: null, move: null });
      expect((await ctx().call('GET', '/ui/storage/dsi/list', { token: user })).json()).toMatchObject({
        data: [],
        totalNumOfItems: 0,
      });
    });

    it('stores, lists and answers files by type and name', async () => {
      const stored = await upload(ctx(), 'dsi', 'design one.dsi', 'first version', user);
      expect(stored.statusCode, stored.body).toBe(200);
      expect(stored.json()).toMatchObject({ filename: 'design one.dsi', filesize: 13 });
      const replaced = await upload(ctx(), 'dsi', 'design one.dsi', 'second version!', user);
      expect(replaced.json()).toMatchObject({ filename: 'design one.dsi', filesize: 15 });
      const dsi = multipartForm({ file: { filename: 'two.dsi', content: 'two' } });
      expect(
        (await ctx().call('POST', '/ui/storage/dsi/upload', { token: user, body: dsi.body, headers: dsi.headers })).statusCode,
      ).toBe(200);
      const list = (await ctx().call('GET', '/ui/storage/dsi/list', { token: user })).json<TPage<TStorageFile>>();
      expect(list.data.map((file) => [file.filename, file.filesize])).toEqual([
        ['design one.dsi', 15],
        ['two.dsi', 3],
      ]);
      const fetched = await ctx().call('GET', '/ui/storage/dsi/fetch/design%20one.dsi', { token: user });
      expect(fetched.statusCode).toBe(200);
      expect(fetched.body).toBe('second version!');
      expect(fetched.headers['content-disposition']).toContain('design one.dsi');
      // the replaced version's object is gone: one object per file
      expect((await keysOf(ctx().app.services.storageProviders.local)).length).toBe(2);
    });

    it('takes a name that differs only in case for the same file, on every database', async () => {
      // MariaDB's collation did already (replacing it); SQLite and PostgreSQL kept two files a
      // Windows or macOS disk cannot hold side by side, and listed them in another order
      const names = async () =>
        (await ctx().call('GET', '/ui/storage/dsi/list', { token: user }))
          .json<TPage<TStorageFile>>()
          .data.map((file) => file.filename);
      const shouted = await upload(ctx(), 'dsi', 'TWO.DSI', 'two, shouted', user);
      expect(shouted.json()).toMatchObject({ filename: 'TWO.DSI', filesize: 12 });
      expect(await names()).toEqual(['design one.dsi', 'TWO.DSI']);
      for (const name of ['two.dsi', 'Two.Dsi']) {
        expect((await ctx().call('GET', `/ui/storage/dsi/fetch/${name}`, { token: user })).body).toBe('two, shouted');
      }
      expect((await keysOf(ctx().app.services.storageProviders.local)).length).toBe(2);
      // back as it was, for what follows
      expect((await upload(ctx(), 'dsi', 'two.dsi', 'two', user)).statusCode).toBe(200);
      expect(await names()).toEqual(['design one.dsi', 'two.dsi']);
      expect((await keysOf(ctx().app.services.storageProviders.local)).length).toBe(2);
    });

    it('never builds a path from a request', async () => {
      for (const name of ['..%2F..%2Fetc%2Fpasswd', '..', '.hidden', '%2Fetc%2Fpasswd', 'a%5C..%5Cb']) {
        expectToken(await ctx().call('GET', `/ui/storage/dsi/fetch/${name}`, { token: user }), 404, 'entityDoesNotExist');
      }
      expectToken(await ctx().call('GET', '/ui/storage/..%2Fdsi/list', { token: user }), 420, 'storageTypeUnavailable');
      // the multipart parser keeps only the last segment of a client's file name
      const escaped = await upload(ctx(), 'dsi', '../../escape.bin', 'x', user);
      expect(escaped.json()).toMatchObject({ filename: 'escape.bin' });
      for (const name of ['a..b', '.hidden', ' lead', 'tab\there']) {
        expectToken(await upload(ctx(), 'dsi', name, 'x', user), 400, 'malformedRequest', 'file');
      }
    });

    it('refuses an oversized upload and keeps nothing of it', async () => {
      const before = await keysOf(ctx().app.services.storageProviders.local);
      expectToken(await upload(ctx(), 'dsi', 'big.bin', Buffer.alloc(MAX + 1, 7), user), 413, 'payloadTooLarge');
      expect(await keysOf(ctx().app.services.storageProviders.local)).toEqual(before);
      expect(await fs.readdir(path.join(ctx().config.dataDir, 'storage', 'tmp'))).toEqual([]);
      expect((await ctx().call('GET', '/ui/storage/dsi/list', { token: user })).json<TPage<TStorageFile>>().totalNumOfItems).toBe(
        3,
      );
    });

    it('answers an upload cut off before its end with 400 malformedRequest (not a provider error) and keeps nothing of it', async () => {
      const before = await keysOf(ctx().app.services.storageProviders.local);
      const listed = async () =>
        (await ctx().call('GET', '/ui/storage/dsi/list', { token: user })).json<TPage<TStorageFile>>().totalNumOfItems;
      const count = await listed();
      const { body, headers } = multipartForm({ file: { filename: 'cut.bin', content: Buffer.alloc(200_000, 7) } });
      const cut = { token: user, body: body.subarray(0, body.length - 100_000), headers };
      expectToken(await ctx().call('POST', '/ui/storage/dsi/upload', cut), 400, 'malformedRequest');
      expectToken(await ctx().call('POST', '/ui/das/upload', { ...cut, token: admin }), 400, 'malformedRequest');
      expect(await keysOf(ctx().app.services.storageProviders.local)).toEqual(before);
      expect(await fs.readdir(path.join(ctx().config.dataDir, 'storage', 'tmp'))).toEqual([]);
      expect(await listed()).toBe(count);
    });

    it('manages storage types', async () => {
      const types = (await ctx().call('GET', '/ui/admin/storage/type/list', { token: admin })).json<{ data: TStorageType[] }>();
      expect(types.data).toEqual([
        { name: 'dsi', path: 'dsi', configured: true },
        { name: 'dtl', path: 'dtl', configured: true },
      ]);
      const saved = await ctx().call('POST', '/ui/admin/storage/type/list', {
        token: admin,
        body: { data: [{ name: 'reports', path: 'quality/reports', configured: false }] },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      expect((await ctx().call('GET', '/ui/admin/storage/type?name=reports', { token: admin })).json()).toEqual({
        name: 'reports',
        path: 'quality/reports',
        configured: false,
      });
      expectToken(await upload(ctx(), 'reports', 'r.txt', 'x', user), 420, 'storageTypeNotConfigured', 'type');
      expectToken(await ctx().call('GET', '/ui/storage/nothing/list', { token: user }), 420, 'storageTypeUnavailable', 'type');
      expectToken(
        await ctx().call('GET', '/ui/admin/storage/type?name=nothing', { token: admin }),
        420,
        'storageTypeUnavailable',
      );
      const bad = await ctx().call('POST', '/ui/admin/storage/type/list', {
        token: admin,
        body: { data: [{ name: 'x', path: '../etc' }, { path: 'p' }] },
      });
      expect(bad.statusCode).toBe(418);
      expect(bad.json<{ data: { errorToken: string; field: string }[] }>().data).toEqual([
        expect.objectContaining({ errorToken: 'storageTypeNotConfigured', field: 'data[0].path' }),
        expect.objectContaining({ errorToken: 'storageTypeNotConfigured', field: 'data[1].name' }),
      ]);
    });

    it('adds the same new storage types from racing requests as from sequential ones (no unique violation)', async () => {
      // each request adds both names, in opposite orders: as if two administrators saved at once
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          ctx().call('POST', '/ui/admin/storage/type/list', {
            token: admin,
            body: {
              data:
                i % 2 === 0
                  ? [
                      { name: 'race-a', path: 'race/a' },
                      { name: 'race-b', path: 'race/b' },
                    ]
                  : [
                      { name: 'race-b', path: 'race/b' },
                      { name: 'race-a', path: 'race/a' },
                    ],
            },
          }),
        ),
      );
      for (const response of racing) expect(response.statusCode, response.body).toBe(200);
      const types = (await ctx().call('GET', '/ui/admin/storage/type/list', { token: admin })).json<{ data: TStorageType[] }>();
      expect(types.data.filter((type) => type.name.startsWith('race-'))).toEqual([
        { name: 'race-a', path: 'race/a', configured: true },
        { name: 'race-b', path: 'race/b', configured: true },
      ]);
      // and again, one after the other: the same answer
      const again = await ctx().call('POST', '/ui/admin/storage/type/list', {
        token: admin,
        body: { data: [{ name: 'race-a', path: 'race/a' }] },
      });
      expect(again.statusCode, again.body).toBe(200);
    });

    it('moves the stored files to S3 in the background; reads keep working meanwhile', async () => {
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', {
        token: admin,
        body: { identifier: 'aws', credentials: place.s3Credentials },
      });
      expect(selected.statusCode, selected.body).toBe(200);
      expect(selected.body).not.toContain(place.s3Credentials.awsSecretAccessKey!);
      expect(selected.body).not.toContain(place.s3Credentials.awsAccessKeyId!);
      expect(selected.json<TStorageProvider>()).toMatchObject({
        identifier: 'aws',
        configured: true,
        move: { from: 'local', to: 'aws', state: 'running' },
      });
      // of the credentials only the settings that are no secret are answered
      expect(selected.json<TStorageProvider>().credentials).toEqual({
        awsStorageRegion: place.s3Credentials.awsStorageRegion,
        awsStorageBucket: place.s3Credentials.awsStorageBucket,
        awsStorageEndpoint: place.s3Credentials.awsStorageEndpoint,
      });
      // not moved yet: read from the local disk
      expect((await ctx().call('GET', '/ui/storage/dsi/fetch/two.dsi', { token: user })).body).toBe('two');
      // new files go to S3 at once
      expect((await upload(ctx(), 'dsi', 'three.dsi', 'three', user)).statusCode).toBe(200);
      expect(await runJobs()).toBeGreaterThanOrEqual(1);
      const after = (await ctx().call('GET', '/ui/admin/storage/provider', { token: admin })).json<TStorageProvider>();
      expect(after.move).toMatchObject({ state: 'done', moved: 3, total: 3, lastError: null });
      expect(await keysOf(ctx().app.services.storageProviders.local)).toEqual([]);
      const s3 = new S3Storage({ ...emulators.s3, bucket: place.s3Credentials.awsStorageBucket! });
      expect((await keysOf(s3)).length).toBe(4);
      expect((await ctx().call('GET', '/ui/storage/dsi/fetch/design%20one.dsi', { token: user })).body).toBe('second version!');
      // sealed at rest
      const raw = await ctx().app.services.settings.get('storage.provider');
      expect(raw).not.toContain(place.s3Credentials.awsSecretAccessKey!);
      expect(raw).not.toContain(place.s3Credentials.awsAccessKeyId!);
    });

    it('moves them on to Azure Blob', async () => {
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', {
        token: admin,
        body: { identifier: 'azure', credentials: place.azureCredentials },
      });
      expect(selected.statusCode, selected.body).toBe(200);
      expect(selected.body).not.toContain(place.azureCredentials.azureAccountKey!);
      // a second switch while the move runs is refused
      expectToken(
        await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } }),
        420,
        'storageProviderNotAvailable',
      );
      await runJobs();
      const chosen = await ctx().call('GET', '/ui/admin/storage/provider', { token: admin });
      expect(chosen.body).not.toContain(place.azureCredentials.azureAccountKey!);
      expect(chosen.json()).toMatchObject({
        identifier: 'azure',
        credentials: {
          azureAccountName: place.azureCredentials.azureAccountName,
          azureContainerName: place.azureCredentials.azureContainerName,
          azureEndpoint: place.azureCredentials.azureEndpoint,
        },
        move: { from: 'aws', to: 'azure', state: 'done', moved: 4 },
      });
      expect(Object.keys(chosen.json<TStorageProvider>().credentials ?? {}).sort()).toEqual([
        'azureAccountName',
        'azureContainerName',
        'azureEndpoint',
      ]);
      const azure = new AzureStorage({ ...emulators.azure, container: place.azureCredentials.azureContainerName! });
      expect((await keysOf(azure)).length).toBe(4);
      expect((await ctx().call('GET', '/ui/storage/dsi/fetch/three.dsi', { token: user })).body).toBe('three');
    });

    it('answers storageTypeReadError, storageTypeWriteError and storageProviderNotConfigured when the provider fails', async () => {
      const container = new BlobServiceClient(
        emulators.azure.endpoint!,
        new StorageSharedKeyCredential(emulators.azure.accountName, emulators.azure.accountKey),
      ).getContainerClient(place.azureCredentials.azureContainerName!);
      // an object gone from under its row
      const row = await ctx()
        .app.services.database.db.selectFrom('storage_files')
        .select('storage_key')
        .where('filename', '=', 'two.dsi')
        .executeTakeFirstOrThrow();
      await container.getBlockBlobClient(`objects/${row.storage_key}`).delete();
      expectToken(
        await ctx().call('GET', '/ui/storage/dsi/fetch/two.dsi', { token: user }),
        420,
        'storageTypeReadError',
        'filename',
      );
      // the container itself gone
      await container.delete();
      expectToken(await upload(ctx(), 'dsi', 'four.dsi', 'four', user), 420, 'storageTypeWriteError', 'file');
      await container.create();
      expect((await ctx().call('GET', '/ui/storage/dsi/list', { token: user })).json<TPage<TStorageFile>>().totalNumOfItems).toBe(
        4,
      );
      // sealed credentials that no longer open (another key-encryption key)
      const { settings, storageProviders } = ctx().app.services;
      const saved = (await settings.get('storage.provider'))!;
      const broken = JSON.parse(saved) as { current: { sealed: string } };
      broken.current.sealed = `${broken.current.sealed.slice(0, -8)}AAAAAAAA`;
      await settings.set('storage.provider', JSON.stringify(broken));
      storageProviders.invalidate();
      expectToken(
        await ctx().call('GET', '/ui/storage/dsi/fetch/three.dsi', { token: user }),
        420,
        'storageProviderNotConfigured',
      );
      await settings.set('storage.provider', saved);
      storageProviders.invalidate();
    });

    it('reads and sets the design archive service switch', async () => {
      expect((await ctx().call('GET', '/ui/admin/das', { token: user })).json()).toEqual({ enabled: false });
      expect((await ctx().call('POST', '/ui/admin/das', { token: admin, body: { enabled: true } })).json()).toEqual({
        enabled: true,
      });
      expect((await ctx().call('GET', '/ui/admin/das', { token: user })).json()).toEqual({ enabled: true });
      expectToken(await ctx().call('POST', '/ui/admin/das', { token: admin, body: {} }), 400, 'malformedRequest');
    });

    it('replaces a file of one name however many uploads of it race, keeping exactly one', async () => {
      const saved = await ctx().call('POST', '/ui/admin/storage/type/list', {
        token: admin,
        body: { data: [{ name: 'races', path: 'races' }] },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const contents = ['race one', 'race two', 'race three', 'race four'];
      const answers = await Promise.all(contents.map((content) => upload(ctx(), 'races', 'race.bin', content, user)));
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const list = (await ctx().call('GET', '/ui/storage/races/list', { token: user })).json<TPage<TStorageFile>>();
      expect(list.data.map((file) => file.filename)).toEqual(['race.bin']);
      const fetched = await ctx().call('GET', '/ui/storage/races/fetch/race.bin', { token: user });
      expect(fetched.statusCode).toBe(200);
      expect(contents).toContain(fetched.body);
    });
  },
  { UPLOAD_MAX_BYTES: String(MAX), STORAGE_ENDPOINT_ALLOWED_HOSTS: '127.0.0.0/8' },
);

describeEachDatabase(
  'uploads to a storage provider that fails',
  (ctx) => {
    let world: LicensingWorld;
    let admin: string;
    let dsiId: string;
    let folderId: string;

    const post = (url: string, fields: UploadForm, cut = false) => {
      const { body, headers } = multipartForm(fields);
      return ctx().call('POST', url, { token: admin, body: cut ? body.subarray(0, body.length - 100_000) : body, headers });
    };
    const file = (filename: string, content = Buffer.alloc(200_000, 7)) => ({ filename, content });
    const uploads = () => uploadRoutes({ dsiId, folderId, deviceId: world.deviceId }, file);
    const rowCounts = () => uploadRowCounts(ctx());

    beforeAll(async () => {
      world = await licensingWorld(ctx());
      admin = await ctx().adminToken();
      dsiId = (await createPackage(ctx())).dsiId;
      const group = await ctx().call('POST', '/ui/groups/add', { token: admin, body: { name: 'Failing storage', members: [] } });
      expect(group.statusCode, group.body).toBe(200);
      const folder = await ctx().call('POST', '/ui/secure-repo/create-folder', {
        token: admin,
        body: { folderName: 'Drawings', groups: [group.json<{ userGroupId: number }>().userGroupId] },
      });
      expect(folder.statusCode, folder.body).toBe(200);
      folderId = folder.json<{ nodeId: string }>().nodeId;
      // S3 selected (its probe writes, reads and deletes an object), then its bucket removed
      const place = await emulators.createPlace(`failing-${ctx().kind}`);
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', {
        token: admin,
        body: { identifier: 'aws', credentials: place.s3Credentials },
      });
      expect(selected.statusCode, selected.body).toBe(200);
      const s3 = new S3Client({
        region: emulators.s3.region,
        endpoint: emulators.s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: emulators.s3.accessKeyId, secretAccessKey: emulators.s3.secretAccessKey },
      });
      await s3.send(new DeleteBucketCommand({ Bucket: place.s3Credentials.awsStorageBucket! }));
      s3.destroy();
    });

    it('answers 420 storageTypeWriteError from every upload route when the bucket is gone, keeping no row', async () => {
      const before = await rowCounts();
      for (const [url, form] of uploads()) expectToken(await post(url, form), 420, 'storageTypeWriteError', 'file');
      expectToken(
        await post('/ui/device/image', { deviceId: world.deviceId, file: file('m.png', onePixelPng) }),
        420,
        'storageTypeWriteError',
        'file',
      );
      const display = `data:image/png;base64,${onePixelPng.toString('base64')}`;
      expectToken(
        await ctx().call('POST', '/ui/package/info', {
          token: admin,
          body: { designName: 'Pictured', description: 'x', companyName: 'Acme', displayImage: display },
        }),
        420,
        'storageTypeWriteError',
        'displayImage',
      );
      expect(await rowCounts()).toEqual(before);
    });

    it('still answers a form cut off before its end 400 malformedRequest, the client\u2019s fault', async () => {
      const before = await rowCounts();
      for (const [url, form] of uploads()) expectToken(await post(url, form, true), 400, 'malformedRequest');
      expect(await rowCounts()).toEqual(before);
    });
  },
  { UPLOAD_MAX_BYTES: String(MAX), STORAGE_ENDPOINT_ALLOWED_HOSTS: '127.0.0.0/8' },
);

describeEachDatabase(
  'uploads whose form goes wrong after the file',
  (ctx) => {
    let world: LicensingWorld;
    let admin: string;
    let dsiId: string;
    let folderId: string;

    const file = (filename: string) => ({ filename, content: Buffer.from(`the bytes of ${filename}`) });
    // a DAS package must be a valid one to be stored at all (das.int.test.ts); the route reads its form alike
    const uploads = () =>
      uploadRoutes({ dsiId, folderId, deviceId: world.deviceId }, file).filter(([url]) => url !== '/ui/das/upload');
    const post = (url: string, entries: [string, string | FormFile][]) => {
      const { body, headers } = multipartEntries(entries);
      return ctx().call('POST', url, { token: admin, body, headers });
    };
    const objects = async () => ({
      storage: (await keysOf(ctx().app.services.storage)).length,
      provider: (await keysOf(ctx().app.services.storageProviders.local)).length,
    });

    beforeAll(async () => {
      world = await licensingWorld(ctx());
      admin = await ctx().adminToken();
      dsiId = (await createPackage(ctx())).dsiId;
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } });
      expect(selected.statusCode, selected.body).toBe(200);
      const folder = await ctx().call('POST', '/ui/secure-repo/create-folder', {
        token: admin,
        body: { folderName: 'After the file', groups: [] },
      });
      expect(folder.statusCode, folder.body).toBe(200);
      folderId = folder.json<{ nodeId: string }>().nodeId;
    });

    it('refuses the whole upload and keeps nothing of it: a second file, too many fields, a NUL in a field after the file', async () => {
      const rows = await uploadRowCounts(ctx());
      const stored = await objects();
      for (const [url, form] of uploads()) {
        const entries = Object.entries(form);
        // the file was stored (row and object) before the parser met the rest, and stayed behind a 413
        expectToken(await post(url, [...entries, ['file', file('second.bin')]]), 413, 'payloadTooLarge');
        const fields = Array.from({ length: 25 }, (_, i): [string, string] => [`note${i}`, 'x']);
        expectToken(await post(url, [...entries, ...fields]), 413, 'payloadTooLarge');
        expectToken(await post(url, [...entries, ['note', 'a\u0000b']]), 400, 'malformedRequest');
        expect({ url, rows: await uploadRowCounts(ctx()), stored: await objects() }).toEqual({ url, rows, stored });
      }
      // the same forms whole are stored
      for (const [url, form] of uploads()) {
        const whole = await post(url, Object.entries(form));
        expect(whole.statusCode, `${url} ${whole.body}`).toBe(200);
      }
    });
  },
  { UPLOAD_MAX_BYTES: String(MAX) },
);
