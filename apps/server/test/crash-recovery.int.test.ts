import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type {
  TDevice,
  TDsiEntry,
  TDsiRevision,
  TOrder,
  TPackage,
  TPackageFile,
  TPage,
  TSecureRepoNode,
  TStorageFile,
  TStorageProvider,
} from '@manifold/contract';
import type { Config } from '../src/config.js';
import { certificateMatchesPublicKey, describeCertificate, parseCertificateBundle } from '../src/crypto/certificates.js';
import { verifyDetachedJws } from '../src/crypto/jws.js';
import { STORAGE_SWEEP } from '../src/jobs/storage-sweep.js';
import {
  addOrder,
  authorize,
  licensingWorld,
  type LicensingWorld,
  policyFor,
  uploadDesignFile,
} from './helpers/licensing-fixtures.js';
import { joinWithApp, LOOPBACK_PEERS, registerDownstream, suitePeer } from './helpers/peer-network.js';
import { type FormFile, multipartEntries } from './helpers/multipart.js';
import { createPackage } from './helpers/packages-fixtures.js';
import { startServer, type ServerProcess } from './helpers/server-process.js';
import { startStorageEmulators, type StorageEmulators } from './helpers/storage-emulators.js';
import { describeEachDatabase, serverProcessEnv, type TestApp } from './helpers/test-app.js';
import { MachineChain } from './helpers/trace-fixtures.js';
import { zipArchive } from './helpers/zip-archive.js';

/** The smallest PNG: a 1×1 transparent pixel. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Kills (SIGKILL) every server process of the list still running, and waits for each to end. */
async function killAll(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  }
}

/** A server process of the suite's instance, for these tests. */
function serverEnv(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  return serverProcessEnv(config, {
    // a request body the test holds back halfway is not cut off by the server before the kill
    UPLOAD_MIN_BYTES_PER_SECOND: '0',
    BODY_TIMEOUT_SECONDS: '600',
    JOBS_POLL_MS: '100',
    ...extra,
  });
}

/** Where the local disk provider keeps objects and temporary files. */
const storageRoot = (config: Config) => path.join(config.dataDir, 'storage');

/** Every stored object's key, and the temporary files of puts. */
async function storageFiles(config: Config): Promise<{ objects: string[]; temporary: string[] }> {
  const root = storageRoot(config);
  const objects: string[] = [];
  for (const prefix of await fs.readdir(root)) {
    if (!/^[a-f0-9]{2}$/.test(prefix)) continue;
    objects.push(...(await fs.readdir(path.join(root, prefix))));
  }
  return { objects: objects.sort(), temporary: (await fs.readdir(path.join(root, 'tmp'))).sort() };
}

/** Makes every stored object and temporary file look two hours old: past the sweeper's grace periods. */
async function ageStorage(config: Config): Promise<void> {
  const root = storageRoot(config);
  const then = new Date(Date.now() - 2 * 3600_000);
  const { objects, temporary } = await storageFiles(config);
  for (const key of objects) await fs.utimes(path.join(root, key.slice(0, 2), key), then, then);
  for (const name of temporary) await fs.utimes(path.join(root, 'tmp', name), then, then);
}

async function objectBytes(config: Config, key: string): Promise<Buffer> {
  return fs.readFile(path.join(storageRoot(config), key.slice(0, 2), key));
}

/** Every storage key a row names, read from the tables themselves (the inspection pictures from their JSON). */
async function referencedKeys(ctx: TestApp): Promise<string[]> {
  const db = ctx.app.services.database.db;
  const keys = new Set<string>();
  const add = (rows: { storage_key: string | null }[]) => rows.forEach((row) => row.storage_key && keys.add(row.storage_key));
  add(await db.selectFrom('images').select('storage_key').execute());
  add(await db.selectFrom('package_files').select('storage_key').execute());
  add(await db.selectFrom('revision_files').select('storage_key').execute());
  add(await db.selectFrom('dtls').select('storage_key').execute());
  add(await db.selectFrom('das_entries').select('storage_key').execute());
  add(await db.selectFrom('storage_files').select('storage_key').execute());
  add(await db.selectFrom('secure_repo_nodes').select('storage_key').execute());
  add(await db.selectFrom('svp_values').select('storage_key').execute());
  for (const row of await db.selectFrom('quality_inspections').select('pictures').execute()) {
    for (const picture of JSON.parse(row.pictures) as { key: string }[]) keys.add(picture.key);
  }
  return [...keys].sort();
}

/** Makes every image row look two hours old: past the sweeper's grace period. */
async function ageImages(ctx: TestApp): Promise<void> {
  const then = new Date(Date.now() - 2 * 3600_000).toISOString();
  await ctx.app.services.database.db.updateTable('images').set({ created_at: then }).execute();
}

/** Every image name a machine, package, revision or archive entry shows. */
async function shownImages(ctx: TestApp): Promise<string[]> {
  const db = ctx.app.services.database.db;
  const names = new Set<string>();
  for (const row of await db.selectFrom('devices').select('image as name').execute()) if (row.name) names.add(row.name);
  for (const table of ['packages', 'package_revisions', 'das_entries'] as const) {
    for (const row of await db.selectFrom(table).select('display_image as name').execute()) if (row.name) names.add(row.name);
  }
  return [...names].sort();
}

/** The newest job id (0 when there is none): jobs added after it belong to what comes next. */
async function lastJobId(ctx: TestApp): Promise<number> {
  const row = await ctx.app.services.database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Waits for the storage sweep a server ran at its start (a job added after `afterJobId`) and answers its state. */
async function sweepAtStart(ctx: TestApp, afterJobId: number): Promise<string> {
  const db = ctx.app.services.database.db;
  const job = await until(
    () =>
      db
        .selectFrom('jobs')
        .select(['state', 'last_error'])
        .where('kind', '=', STORAGE_SWEEP)
        .where('id', '>', afterJobId)
        .where('state', 'in', ['done', 'failed'])
        .executeTakeFirst(),
    'the storage sweep at start',
  );
  return job.last_error ? `${job.state}: ${job.last_error}` : job.state;
}

/** A multipart upload whose body stops partway (the rest never sent): the answer, or 'reset' when the connection died. */
interface HeldUpload {
  answer: Promise<number | 'reset'>;
  /** Resolves once the bytes sent have been handed to the connection. */
  sent: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  destroy(): void;
}

function heldUpload(
  url: string,
  route: string,
  token: string,
  entries: [string, string | FormFile][],
  fraction = 0.6,
): HeldUpload {
  const { body, headers } = multipartEntries(entries);
  const request = http.request(`${url}${route}`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}`, 'content-length': String(body.length) },
  });
  const answer = new Promise<number | 'reset'>((resolve) => {
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve('reset'));
  });
  const sent = new Promise<void>((resolve, reject) =>
    request.write(body.subarray(0, Math.floor(body.length * fraction)), (error) => (error ? reject(error) : resolve())),
  );
  return {
    answer,
    sent,
    finish: () => request.end(body.subarray(Math.floor(body.length * fraction))),
    destroy: () => request.destroy(),
  };
}

/** A multipart upload sent whole with fetch; its status and JSON. */
async function postForm<T>(url: string, route: string, token: string, entries: [string, string | FormFile][]) {
  const { body, headers } = multipartEntries(entries);
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}` },
    body,
  });
  const text = await response.text();
  expect(response.status, `${route}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

async function getBytes(url: string, route: string, token: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A 3MF: a zip with a model and a PNG thumbnail, padded with `padding` random bytes. */
function threeMf(padding: number): Buffer {
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
    { name: '3D/3dmodel.model', data: randomBytes(padding) },
    { name: 'Metadata/thumbnail.png', data: png },
  ]);
}

/**
 * Holds back the server's writes to one row: on PostgreSQL and MariaDB the row is locked
 * (`FOR UPDATE`), on SQLite the database's write lock is taken (`BEGIN IMMEDIATE`). `release`
 * rolls back and frees it.
 */
async function holdRowLock(
  ctx: TestApp,
  table: 'packages' | 'images',
  column: 'id' | 'name',
  value: string,
): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  let failed!: (error: unknown) => void;
  const holding = new Promise<void>((resolve, reject) => ((held = resolve), (failed = reject)));
  const done = ctx.app.services.database.db
    .connection()
    .execute(async (connection) => {
      if (ctx.kind === 'sqlite') {
        await sql`begin immediate`.execute(connection);
      } else {
        await sql`begin`.execute(connection);
        await sql`select ${sql.ref(column)} from ${sql.table(table)} where ${sql.ref(column)} = ${value} for update`.execute(
          connection,
        );
      }
      held();
      await released;
      await sql`rollback`.execute(connection);
    })
    .catch((error: unknown) => failed(error));
  await holding;
  return {
    async release() {
      release();
      await done;
    },
  };
}

/**
 * Whether a statement of another connection that starts with `statement` (lower case, quotes
 * left out) is running on the database: on PostgreSQL waiting for a lock, on MariaDB executing
 * (it can only be waiting for the lock the test holds).
 */
async function waitingStatement(ctx: TestApp, statement: string): Promise<boolean> {
  const db = ctx.app.services.database.db;
  const pattern = `${statement}%`;
  const query =
    ctx.kind === 'postgres'
      ? sql<{ n: number }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'
          and replace(lower(query), '"', '') like ${pattern}`
      : sql<{ n: number }>`select count(*) as n from information_schema.processlist
          where db = database() and id <> connection_id() and command = 'Query'
          and replace(lower(info), '\`', '') like ${pattern}`;
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0) > 0;
}

describeEachDatabase('writes survive kill -9 of the server, and a crash leaves nothing half-written', (ctx) => {
  const servers: ServerProcess[] = [];
  let world: LicensingWorld;
  let admin: string;
  let folderId: string;

  /** Starts a server process on the suite's database; stopped after the suite whatever happens. */
  const start = async (extra: Record<string, string> = {}) => {
    const server = await startServer(serverEnv(ctx().config, extra));
    servers.push(server);
    return server;
  };
  const kill = async (server: ServerProcess) => {
    server.child.kill('SIGKILL');
    await server.exited;
    expect(server.child.signalCode).toBe('SIGKILL');
  };

  afterAll(async () => {
    await killAll(servers);
  });

  beforeAll(async () => {
    world = await licensingWorld(ctx());
    admin = await ctx().adminToken();
    const selected = await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } });
    expect(selected.statusCode, selected.body).toBe(200);
    const group = await ctx().call('POST', '/ui/groups/add', { token: admin, body: { name: 'Crash testers', members: [] } });
    expect(group.statusCode, group.body).toBe(200);
    const folder = await ctx().call('POST', '/ui/secure-repo/create-folder', {
      token: admin,
      body: { folderName: 'Crash', groups: [group.json<{ userGroupId: number }>().userGroupId] },
    });
    expect(folder.statusCode, folder.body).toBe(200);
    folderId = folder.json<TSecureRepoNode>().nodeId;
  }, 120_000);

  it('keeps every acknowledged upload whole; an upload killed mid-body leaves no row, and the sweep no object', async () => {
    const db = ctx().app.services.database.db;
    const pkg: TPackage = await createPackage(ctx());
    const chain = new MachineChain(world);
    const eventFile = async (count: number) => {
      const events = [];
      for (let index = 0; index < count; index += 1) {
        events.push({ proof: { format: 'stp', envelope: await chain.envelope(chain.next('machineIdle')) } });
      }
      return Buffer.from(JSON.stringify({ events }));
    };

    const first = await start();
    const { url } = first;

    // acknowledged: each answered 200 before the kill
    const publicModel = threeMf(3 * 1024 * 1024);
    const publicFile = await postForm<TPackageFile>(url, '/ui/package/files/upload', admin, [
      ['dsiId', pkg.dsiId],
      ['isPublic', 'true'],
      ['file', { filename: 'bracket.3mf', content: publicModel, contentType: 'model/3mf' }],
    ]);
    const privateModel = threeMf(2 * 1024 * 1024);
    const privateFile = await postForm<TPackageFile>(url, '/ui/package/files/upload', admin, [
      ['dsiId', pkg.dsiId],
      ['isPublic', 'false'],
      ['file', { filename: 'secret.3mf', content: privateModel, contentType: 'model/3mf' }],
    ]);
    const secureBytes = randomBytes(1024 * 1024 + 17);
    const secureFile = await postForm<TSecureRepoNode>(url, '/ui/secure-repo/upload', admin, [
      ['nodeId', folderId],
      ['file', { filename: 'drawing.pdf', content: secureBytes, contentType: 'application/pdf' }],
    ]);
    const typedBytes = randomBytes(1024 * 1024 + 3);
    const typedFile = await postForm<TStorageFile>(url, '/ui/storage/dsi/upload', admin, [
      ['file', { filename: 'design.dsi', content: typedBytes, contentType: 'application/octet-stream' }],
    ]);
    const picture = Buffer.concat([png, randomBytes(64)]);
    const device = await postForm<TDevice>(url, '/ui/device/image', admin, [
      ['deviceId', world.deviceId],
      ['file', { filename: 'machine.png', content: picture, contentType: 'image/png' }],
    ]);
    const machineData = randomBytes(1024 * 1024 + 5);
    const dtl = await postForm<{ dtlId: string }>(url, '/ui/storage/dtl/upload', admin, [
      ['deviceId', world.deviceId],
      ['file', { filename: 'scan.bin', content: machineData, contentType: 'application/octet-stream' }],
    ]);
    const acknowledgedEvents = await eventFile(3);
    const uploaded = await postForm<{ stored: number }>(url, '/ui/event/upload', admin, [
      ['file', { filename: 'events.json', content: acknowledgedEvents, contentType: 'application/json' }],
    ]);
    expect(uploaded.stored).toBe(3);

    // held: each body stops partway; a streamed one has its temporary file written to
    const held: HeldUpload[] = [];
    const temporaryFiles = async () => (await storageFiles(ctx().config)).temporary;
    const hold = async (route: string, entries: [string, string | FormFile][], streamed: boolean) => {
      const before = (await temporaryFiles()).length;
      const upload = heldUpload(url, route, admin, entries);
      held.push(upload);
      await upload.sent;
      if (streamed) await until(async () => (await temporaryFiles()).length > before, `the temporary file of ${route}`);
    };
    await hold(
      '/ui/package/files/upload',
      [
        ['dsiId', pkg.dsiId],
        ['isPublic', 'false'],
        ['file', { filename: 'killed.3mf', content: threeMf(4 * 1024 * 1024), contentType: 'model/3mf' }],
      ],
      true,
    );
    await hold(
      '/ui/secure-repo/upload',
      [
        ['nodeId', folderId],
        ['file', { filename: 'killed.pdf', content: randomBytes(4 * 1024 * 1024), contentType: 'application/pdf' }],
      ],
      true,
    );
    await hold(
      '/ui/storage/dsi/upload',
      [['file', { filename: 'killed.dsi', content: randomBytes(4 * 1024 * 1024), contentType: 'application/octet-stream' }]],
      true,
    );
    await hold(
      '/ui/storage/dtl/upload',
      [
        ['deviceId', world.deviceId],
        ['file', { filename: 'killed.bin', content: randomBytes(4 * 1024 * 1024), contentType: 'application/octet-stream' }],
      ],
      true,
    );
    await hold(
      '/ui/device/image',
      [
        ['deviceId', world.deviceId],
        ['file', { filename: 'killed.png', content: Buffer.concat([png, randomBytes(1024 * 1024)]), contentType: 'image/png' }],
      ],
      false,
    );
    const killedEvents = await eventFile(3);
    await hold(
      '/ui/event/upload',
      [['file', { filename: 'events.json', content: killedEvents, contentType: 'application/json' }]],
      false,
    );

    // the last upload is acknowledged, and the server is killed the moment the answer is read
    const lastModel = threeMf(1024 * 1024);
    const lastFile = await postForm<TPackageFile>(url, '/ui/package/files/upload', admin, [
      ['dsiId', pkg.dsiId],
      ['isPublic', 'false'],
      ['file', { filename: 'last.3mf', content: lastModel, contentType: 'model/3mf' }],
    ]);
    await kill(first);
    expect(await Promise.all(held.map((upload) => upload.answer))).toEqual(held.map(() => 'reset'));
    expect((await storageFiles(ctx().config)).temporary.length).toBeGreaterThanOrEqual(4);

    // restarted with everything on disk older than the sweep's grace periods
    await ageStorage(ctx().config);
    const jobsBefore = await lastJobId(ctx());
    const second = await start();
    expect(await sweepAtStart(ctx(), jobsBefore)).toBe('done');

    // the acknowledged files, whole
    const download = (fileId: string) => getBytes(second.url, `/ui/package/files/download?fileId=${fileId}`, admin);
    for (const [file, bytes] of [
      [publicFile, publicModel],
      [privateFile, privateModel],
      [lastFile, lastModel],
    ] as const) {
      const got = await download(file.fileId);
      expect(got.status).toBe(200);
      expect(sha256(got.bytes)).toBe(sha256(bytes));
      expect(file.sha256).toBe(sha256(bytes));
    }
    const secure = await getBytes(second.url, `/ui/secure-repo/download?nodeId=${secureFile.nodeId}`, admin);
    expect([secure.status, sha256(secure.bytes)]).toEqual([200, sha256(secureBytes)]);
    const typed = await getBytes(second.url, `/ui/storage/dsi/fetch/${typedFile.filename}`, admin);
    expect([typed.status, sha256(typed.bytes)]).toEqual([200, sha256(typedBytes)]);
    const image = await getBytes(second.url, `/ui/device/image/${device.deviceIdentity.image}`, admin);
    expect([image.status, sha256(image.bytes)]).toEqual([200, sha256(picture)]);
    const dtlRow = await db.selectFrom('dtls').selectAll().where('id', '=', dtl.dtlId).executeTakeFirstOrThrow();
    expect(dtlRow.sha256).toBe(sha256(machineData));
    expect(sha256(await objectBytes(ctx().config, dtlRow.storage_key))).toBe(sha256(machineData));
    // the public 3MF's thumbnail became the package's display image, and is kept
    const shown = await db.selectFrom('packages').select('display_image').where('id', '=', pkg.dsiId).executeTakeFirstOrThrow();
    expect(shown.display_image).not.toBeNull();
    const thumbnail = await getBytes(second.url, `/ui/package/image/${shown.display_image}`, admin);
    expect([thumbnail.status, sha256(thumbnail.bytes)]).toEqual([200, sha256(png)]);

    // the killed ones: no row, and neither a temporary file nor an object is left
    const names = await db
      .selectFrom('package_files')
      .select('file_name')
      .where('package_id', '=', pkg.dsiId)
      .orderBy('file_name')
      .execute();
    expect(names.map((row) => row.file_name)).toEqual(['bracket.3mf', 'last.3mf', 'secret.3mf']);
    const nodes = await db.selectFrom('secure_repo_nodes').select('name').where('parent_id', '=', folderId).execute();
    expect(nodes.map((row) => row.name)).toEqual(['drawing.pdf']);
    const typedRows = await db.selectFrom('storage_files').select('filename').where('type_name', '=', 'dsi').execute();
    expect(typedRows.map((row) => row.filename)).toEqual(['design.dsi']);
    const dtlRows = await db.selectFrom('dtls').select('file_name').where('device_id', '=', world.deviceId).execute();
    expect(dtlRows.map((row) => row.file_name)).toEqual(['scan.bin']);
    const machine = await db.selectFrom('devices').select('image').where('id', '=', world.deviceId).executeTakeFirstOrThrow();
    expect(machine.image).toBe(device.deviceIdentity.image);
    const stored = await storageFiles(ctx().config);
    expect(stored.temporary).toEqual([]);
    expect(stored.objects).toEqual(await referencedKeys(ctx()));

    // the machine's events that were on their way are not stored; sent again, they are
    const again = await postForm<{ stored: number; repeated: number }>(second.url, '/ui/event/upload', admin, [
      ['file', { filename: 'events.json', content: killedEvents, contentType: 'application/json' }],
    ]);
    expect([again.stored, again.repeated]).toEqual([3, 0]);
    const repeated = await postForm<{ stored: number; repeated: number }>(second.url, '/ui/event/upload', admin, [
      ['file', { filename: 'events.json', content: acknowledgedEvents, contentType: 'application/json' }],
    ]);
    expect([repeated.stored, repeated.repeated]).toEqual([0, 3]);
    // a file the server stored part of (it stores 1,000 events a transaction) is sent again whole:
    // what is stored counts as repeated, the rest is stored
    const events = JSON.parse((await eventFile(4)).toString('utf8')) as { events: unknown[] };
    const part = await postForm<{ stored: number; repeated: number }>(second.url, '/ui/event/upload', admin, [
      ['file', { filename: 'events.json', content: Buffer.from(JSON.stringify({ events: events.events.slice(0, 2) })) }],
    ]);
    expect([part.stored, part.repeated]).toEqual([2, 0]);
    const whole = await postForm<{ stored: number; repeated: number }>(second.url, '/ui/event/upload', admin, [
      ['file', { filename: 'events.json', content: Buffer.from(JSON.stringify(events)) }],
    ]);
    expect([whole.stored, whole.repeated]).toEqual([2, 2]);
    await kill(second);
  }, 240_000);

  it('leaves no half-written file when killed between storing the object and writing its row', async () => {
    const db = ctx().app.services.database.db;
    const pkg = await createPackage(ctx());
    // no job runner: on SQLite its polls would wait for the held write lock too
    const server = await start({ JOBS_ENABLED: 'false' });
    const before = await storageFiles(ctx().config);
    // the body stops halfway: the upload's checks are done and its temporary file written
    const upload = heldUpload(server.url, '/ui/package/files/upload', admin, [
      ['dsiId', pkg.dsiId],
      ['isPublic', 'false'],
      ['file', { filename: 'orphan.3mf', content: threeMf(2 * 1024 * 1024), contentType: 'model/3mf' }],
    ]);
    let hold: { release(): Promise<void> } | undefined;
    try {
      await upload.sent;
      await until(
        async () => (await storageFiles(ctx().config)).temporary.length > before.temporary.length,
        'the temporary file',
      );
      // then the row is held back and the rest sent: the object is stored, and its row waits (on
      // SQLite its transaction waits at its start for the write lock, up to the busy timeout of 5 s)
      hold = await holdRowLock(ctx(), 'packages', 'id', pkg.dsiId);
      upload.finish();
      const stored = await until(async () => {
        const { objects } = await storageFiles(ctx().config);
        const added = objects.filter((key) => !before.objects.includes(key));
        return added.length > 0 ? added : undefined;
      }, 'the stored object');
      await kill(server);
      expect(await upload.answer).toBe('reset');
      expect(stored).toHaveLength(1);
    } finally {
      upload.destroy();
      await hold?.release();
    }
    expect(await db.selectFrom('package_files').select('id').where('package_id', '=', pkg.dsiId).execute()).toEqual([]);

    await ageStorage(ctx().config);
    const jobsBefore = await lastJobId(ctx());
    const restarted = await start();
    expect(await sweepAtStart(ctx(), jobsBefore)).toBe('done');
    const after = await storageFiles(ctx().config);
    expect(after.temporary).toEqual([]);
    expect(after.objects).toEqual(before.objects);
    expect(after.objects).toEqual(await referencedKeys(ctx()));
    // the upload sent again is stored
    const bytes = threeMf(512 * 1024);
    const file = await postForm<TPackageFile>(restarted.url, '/ui/package/files/upload', admin, [
      ['dsiId', pkg.dsiId],
      ['isPublic', 'false'],
      ['file', { filename: 'orphan.3mf', content: bytes, contentType: 'model/3mf' }],
    ]);
    const got = await getBytes(restarted.url, `/ui/package/files/download?fileId=${file.fileId}`, admin);
    expect([got.status, sha256(got.bytes)]).toEqual([200, sha256(bytes)]);
    await kill(restarted);
  }, 120_000);

  it('finishes or rolls back a package build killed at any point: no half revision, none naming a missing object', async () => {
    const db = ctx().app.services.database.db;
    const pkg = await createPackage(ctx());
    const model = threeMf(3 * 1024 * 1024);
    const file = await uploadDesignFile(ctx(), pkg.dsiId, model, false);
    const build = (url: string) =>
      fetch(`${url}/ui/package/build`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ dsiId: pkg.dsiId }),
      });
    const revisions = () =>
      db
        .selectFrom('package_revisions')
        .select(['id', 'dsi_version'])
        .where('package_id', '=', pkg.dsiId)
        .orderBy('dsi_version')
        .execute();

    if (ctx().kind !== 'sqlite') {
      // a build inside its transaction, waiting for the package's row lock, when the server dies
      const server = await start();
      const hold = await holdRowLock(ctx(), 'packages', 'id', pkg.dsiId);
      try {
        const answer = build(server.url).then(
          (response) => response.status,
          () => 'reset',
        );
        await until(() => waitingStatement(ctx(), 'select'), 'the build waiting for the lock');
        await kill(server);
        expect(await answer).toBe('reset');
      } finally {
        await hold.release();
      }
      expect(await revisions()).toEqual([]);
    }

    // builds and privacy switches of the package's file one after another; a few milliseconds
    // after the fifth build is acknowledged the server is killed, in the middle of whatever runs
    const server = await start();
    const acknowledged: TDsiEntry[] = [];
    let isPublic = false;
    let killing = false;
    for (let index = 0; index < 1000; index += 1) {
      try {
        if (index % 2 === 0) {
          const response = await build(server.url);
          expect(response.status, await response.clone().text()).toBe(200);
          acknowledged.push((await response.json()) as TDsiEntry);
          if (acknowledged.length === 5) {
            killing = true;
            setTimeout(() => server.child.kill('SIGKILL'), Math.random() * 40);
          }
        } else {
          const response = await fetch(`${server.url}/ui/package/files/privacy`, {
            method: 'POST',
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify({ fileId: file.fileId, isPublic: !isPublic }),
          });
          expect(response.status, await response.clone().text()).toBe(200);
          isPublic = !isPublic;
        }
      } catch (error) {
        if (!killing) throw error;
        break; // the connection died with the server
      }
    }
    await server.exited;
    expect(server.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(5);

    await ageStorage(ctx().config);
    const jobsBefore = await lastJobId(ctx());
    const restarted = await start();
    expect(await sweepAtStart(ctx(), jobsBefore)).toBe('done');

    // every acknowledged build is there, the versions have no gap, and each revision is whole
    const rows = await revisions();
    expect(rows.map((row) => row.dsi_version)).toEqual(rows.map((_, index) => index + 1));
    for (const entry of acknowledged) expect(rows.map((row) => row.id)).toContain(entry.revisionId);
    for (const row of rows) {
      const fetched = await fetch(`${restarted.url}/ui/das/fetch?revisionId=${row.id}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(fetched.status).toBe(200);
      const revision = (await fetched.json()) as TDsiRevision;
      expect(sha256(Buffer.from(revision.manifest))).toBe(revision.digestValue);
    }
    const frozen = await db
      .selectFrom('revision_files')
      .select(['storage_key', 'sha256'])
      .where(
        'revision_id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    expect(frozen).toHaveLength(rows.length);
    const stored = await storageFiles(ctx().config);
    for (const row of frozen) {
      expect(row.sha256).toBe(sha256(model));
      expect(stored.objects).toContain(row.storage_key);
    }
    expect(stored.temporary).toEqual([]);
    expect(stored.objects).toEqual(await referencedKeys(ctx()));
    // the file reads back whole as it is now, and the next build follows on
    const got = await getBytes(restarted.url, `/ui/package/files/download?fileId=${file.fileId}`, admin);
    expect([got.status, sha256(got.bytes)]).toEqual([200, sha256(model)]);
    const next = await build(restarted.url);
    expect(next.status).toBe(200);
    expect(((await next.json()) as TDsiEntry).dsiVersion).toBe(rows.length + 1);
    await kill(restarted);
  }, 180_000);

  it('shows the machine picture acknowledged last; the sweep takes the pictures a crash left behind', async () => {
    const db = ctx().app.services.database.db;
    const pictures: Buffer[] = [];
    const setPicture = (url: string) => {
      const bytes = Buffer.concat([png, randomBytes(1000 + pictures.length)]);
      pictures.push(bytes);
      const { body, headers } = multipartEntries([
        ['deviceId', world.deviceId],
        ['file', { filename: 'machine.png', content: bytes, contentType: 'image/png' }],
      ]);
      return fetch(`${url}/ui/device/image`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${admin}` }, body });
    };
    const shown = async () =>
      (await db.selectFrom('devices').select('image').where('id', '=', world.deviceId).executeTakeFirstOrThrow()).image;

    if (ctx().kind !== 'sqlite') {
      // the new picture is committed, and the old one's removal waits for its row when the server dies
      const server = await start();
      expect((await setPicture(server.url)).status).toBe(200);
      const before = await shown();
      const hold = await holdRowLock(ctx(), 'images', 'name', before!);
      try {
        const answer = setPicture(server.url).then(
          (response) => response.status,
          () => 'reset',
        );
        await until(() => waitingStatement(ctx(), 'delete from images'), 'the old picture’s removal waiting for its row');
        await kill(server);
        expect(await answer).toBe('reset');
      } finally {
        await hold.release();
      }
      // committed before the answer: the machine shows the new picture
      expect(await shown()).not.toBe(before);
    }

    // pictures replaced one after another; a few milliseconds after the fifth is acknowledged the
    // server is killed, in the middle of whatever runs
    const server = await start();
    let acknowledged = -1;
    let killing = false;
    for (let index = 0; index < 1000; index += 1) {
      try {
        const response = await setPicture(server.url);
        expect(response.status, await response.clone().text()).toBe(200);
        acknowledged = index;
        if (index === 4) {
          killing = true;
          setTimeout(() => server.child.kill('SIGKILL'), Math.random() * 20);
        }
      } catch (error) {
        if (!killing) throw error;
        break;
      }
    }
    await server.exited;
    expect(acknowledged).toBeGreaterThanOrEqual(4);

    await ageStorage(ctx().config);
    await ageImages(ctx());
    const jobsBefore = await lastJobId(ctx());
    const restarted = await start();
    expect(await sweepAtStart(ctx(), jobsBefore)).toBe('done');
    // the machine shows the last acknowledged picture, or one sent after it that was committed
    const image = await getBytes(restarted.url, `/ui/device/image/${await shown()}`, admin);
    expect(image.status).toBe(200);
    expect(pictures.slice(acknowledged).map(sha256)).toContain(sha256(image.bytes));
    // every picture left is one something shows, and every object one a row names
    expect((await db.selectFrom('images').select('name').orderBy('name').execute()).map((row) => row.name)).toEqual(
      await shownImages(ctx()),
    );
    const stored = await storageFiles(ctx().config);
    expect(stored.temporary).toEqual([]);
    expect(stored.objects).toEqual(await referencedKeys(ctx()));
    await kill(restarted);
  }, 180_000);
});

/**
 * Holds back every write to `table` until released: PostgreSQL `LOCK TABLE … IN SHARE MODE`,
 * MariaDB `LOCK TABLES … READ`, SQLite the database's write lock (`BEGIN IMMEDIATE`).
 */
async function holdTableWrites(ctx: TestApp, table: string): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  let failed!: (error: unknown) => void;
  const holding = new Promise<void>((resolve, reject) => ((held = resolve), (failed = reject)));
  const done = ctx.app.services.database.db
    .connection()
    .execute(async (connection) => {
      if (ctx.kind === 'sqlite') await sql`begin immediate`.execute(connection);
      else if (ctx.kind === 'postgres') {
        await sql`begin`.execute(connection);
        await sql`lock table ${sql.table(table)} in share mode`.execute(connection);
      } else await sql`lock tables ${sql.table(table)} read`.execute(connection);
      held();
      await released;
      await (ctx.kind === 'mysql' ? sql`unlock tables` : sql`rollback`).execute(connection);
    })
    .catch((error: unknown) => failed(error));
  await holding;
  return {
    async release() {
      release();
      await done;
    },
  };
}

describeEachDatabase('server keys survive kill -9 while they are provisioned or replaced', (ctx) => {
  const servers: ServerProcess[] = [];
  const start = async () => {
    const server = await startServer(serverEnv(ctx().config, { DEVELOPMENT_CA: 'true' }));
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    await killAll(servers);
  });

  const keyPairs = () =>
    ctx()
      .app.services.database.db.selectFrom('server_key_pairs')
      .select(['purpose', 'public_key_pem', 'generation'])
      .orderBy('purpose')
      .execute();
  const certificates = () =>
    ctx()
      .app.services.database.db.selectFrom('server_certificates')
      .select(['purpose', 'certificate_pem'])
      .orderBy('purpose')
      .execute();
  /** Both key pairs of one generation; each installed certificate certifies its own pair's key. */
  const expectConsistent = async () => {
    const pairs = await keyPairs();
    expect(pairs.map((pair) => pair.purpose)).toEqual(['encryption', 'signing']);
    expect(new Set(pairs.map((pair) => Number(pair.generation))).size).toBe(1);
    for (const certificate of await certificates()) {
      const pair = pairs.find((entry) => entry.purpose === certificate.purpose)!;
      const leaf = parseCertificateBundle(certificate.certificate_pem)[0]!;
      expect(certificateMatchesPublicKey(leaf, pair.public_key_pem), `the ${certificate.purpose} certificate`).toBe(true);
    }
    return Number(pairs[0]!.generation);
  };

  it('keeps one consistent generation of keys and certificates, and signs with it after the restart', async () => {
    const admin = await ctx().adminToken();
    const post = (url: string, route: string, body?: unknown) =>
      fetch(`${url}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const ok = async (response: Promise<Response>) => {
      const answer = await response;
      const text = await answer.text();
      expect(answer.status, text).toBe(200);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const rekey = (url: string) => post(url, '/ui/admin/provision', { keyType: 'EC', rekey: true });
    const certify = (url: string) => post(url, '/ui/admin/provision/development-ca');

    const first = await start();
    await ok(post(first.url, '/ui/admin/provision', { keyType: 'EC' }));
    await ok(certify(first.url));
    expect(await expectConsistent()).toBe(1);

    if (ctx().kind !== 'sqlite') {
      // a re-key inside its transaction (certificates and keys replaced, its audit record waiting
      // for the table) when the server dies: nothing of it stays
      const before = { pairs: await keyPairs(), certificates: await certificates() };
      const hold = await holdTableWrites(ctx(), 'audit_events');
      try {
        const answer = rekey(first.url).then(
          (response) => response.status,
          () => 'reset',
        );
        await until(() => waitingStatement(ctx(), 'insert into audit_events'), 'the re-key waiting for the audit table');
        first.child.kill('SIGKILL');
        await first.exited;
        expect(await answer).toBe('reset');
      } finally {
        await hold.release();
      }
      expect(await keyPairs()).toEqual(before.pairs);
      expect(await certificates()).toEqual(before.certificates);
    } else {
      first.child.kill('SIGKILL');
      await first.exited;
    }

    // re-keys and certificate installs one after another; a few milliseconds after the fourth is
    // acknowledged the server is killed, in the middle of whatever runs
    const second = await start();
    let acknowledgedGeneration = 1;
    let killing = false;
    for (let index = 0; index < 1000; index += 1) {
      try {
        if (index % 2 === 0) acknowledgedGeneration = Number((await ok(rekey(second.url))).generation);
        else await ok(certify(second.url));
        if (index === 3) {
          killing = true;
          setTimeout(() => second.child.kill('SIGKILL'), Math.random() * 60);
        }
      } catch (error) {
        if (!killing) throw error;
        break;
      }
    }
    await second.exited;
    expect(second.child.signalCode).toBe('SIGKILL');

    // the instance starts, its keys and certificates agree, and nothing acknowledged went back
    const third = await start();
    expect(await expectConsistent()).toBeGreaterThanOrEqual(acknowledgedGeneration);
    await ok(certify(third.url));
    const generation = await expectConsistent();
    expect((await certificates()).map((row) => row.purpose)).toEqual(['encryption', 'signing']);

    // it signs with the pair: a build's manifest verifies against the installed signing certificate
    const pkg = await ok(
      post(third.url, '/ui/package/info', { designName: 'After the crash', description: 'x', companyName: 'Acme' }),
    );
    await postForm(third.url, '/ui/package/files/upload', admin, [
      ['dsiId', String(pkg.dsiId)],
      ['isPublic', 'false'],
      ['file', { filename: 'part.3mf', content: threeMf(1024), contentType: 'model/3mf' }],
    ]);
    const built = (await ok(post(third.url, '/ui/package/build', { dsiId: pkg.dsiId }))) as unknown as TDsiEntry;
    const revision = (await (
      await fetch(`${third.url}/ui/das/fetch?revisionId=${built.revisionId}`, { headers: { authorization: `Bearer ${admin}` } })
    ).json()) as TDsiRevision;
    const signing = (await certificates()).find((row) => row.purpose === 'signing')!;
    const leaf = parseCertificateBundle(signing.certificate_pem)[0]!;
    await verifyDetachedJws(revision.signature, revision.manifest, leaf.pem);
    expect(revision.publicKeySN).toBe(describeCertificate(leaf).serialNumber);
    expect(await expectConsistent()).toBe(generation);
    third.child.kill('SIGKILL');
    await third.exited;
  }, 180_000);
});

/**
 * Starts `server` on a free loopback port and answers `state` with its address and a `close` that
 * drops every open connection (a held request included) before the server stops.
 */
async function listenOnLoopback<T extends object>(
  server: http.Server,
  state: T,
): Promise<T & { url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** A peer's address that forwards to the real peer, and can hold each delivery before or after the peer answered it. */
interface HoldingProxy {
  url: string;
  /** `hold`: the first `before` requests are held unsent, the rest sent and their answers held; `pass`: forwarded. */
  mode: 'hold' | 'pass';
  before: number;
  /** Requests held (unsent, or answered by the peer and not passed back). */
  held: { messageId: string; forwarded: boolean }[];
  /** Every answer the peer gave, in order, with the message it answered. */
  answers: { messageId: string; status: number; body: string }[];
  close(): Promise<void>;
}

async function holdingProxy(target: () => string): Promise<HoldingProxy> {
  const state: Omit<HoldingProxy, 'url' | 'close'> = { mode: 'hold', before: 0, held: [], answers: [] };
  const server = http.createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const messageId = String((JSON.parse(body.toString('utf8')) as { apl?: { messageId?: string } }).apl?.messageId);
      const holding = state.mode === 'hold';
      if (holding && state.held.filter((entry) => !entry.forwarded).length < state.before) {
        state.held.push({ messageId, forwarded: false });
        return;
      }
      const answer = await fetch(`${target()}${request.url}`, {
        method: request.method,
        headers: { 'content-type': String(request.headers['content-type']) },
        body,
      });
      const text = await answer.text();
      state.answers.push({ messageId, status: answer.status, body: text });
      if (holding) {
        state.held.push({ messageId, forwarded: true });
        return;
      }
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      response.end(text);
    })().catch(() => response.destroy());
  });
  return listenOnLoopback(server, state);
}

/** The downstream Manage instance of the outbox suite: a server process of its own (SQLite). */
const downstream = await suitePeer('Crash Network Root', 'Crash Downstream Site', { JOBS_POLL_MS: '200' });

describeEachDatabase(
  'outbox deliveries survive kill -9 of the sending server',
  (ctx) => {
    const servers: ServerProcess[] = [];
    let proxy: HoldingProxy | undefined;
    afterAll(async () => {
      await killAll(servers);
      await proxy?.close();
    });

    it('delivers every queued message once after the restart, none lost or left in flight', async () => {
      const { admin } = await joinWithApp(ctx(), downstream);
      const pkg = await createPackage(ctx());
      await uploadDesignFile(ctx(), pkg.dsiId, randomBytes(4096), false);
      const built = await ctx().call('POST', '/ui/package/build', { token: admin, body: { dsiId: pkg.dsiId } });
      expect(built.statusCode, built.body).toBe(200);
      const signing = (await ctx().app.services.credentials.identity('signing')).certificatePem;
      const world = {
        revision: built.json<TDsiEntry>(),
        licenseeSerial: describeCertificate(signing).serialNumber,
      } as LicensingWorld;
      const { ours } = await registerDownstream(ctx(), admin, downstream);
      const db = ctx().app.services.database.db;

      // the deliveries go through a proxy that holds them: three never reach the peer, three are
      // applied there and their answers held back
      proxy = await holdingProxy(() => downstream.url);
      proxy.before = 3;
      await db.updateTable('manage_instances').set({ manage_url: proxy.url }).where('id', '=', ours.manageId).execute();
      const authorizations: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        const orderId = await addOrder(ctx(), policyFor(world));
        const authorizationId = await authorize(ctx(), { orderId, manageId: ours.manageId, quantity: 1 });
        const sent = await ctx().call('POST', '/ui/authorization/send', { token: admin, body: { orderId, authorizationId } });
        expect(sent.statusCode, sent.body).toBe(200);
        authorizations.push(authorizationId);
      }
      const messages = () =>
        db
          .selectFrom('outbox')
          .select(['message_id', 'subject_id', 'state', 'attempts', 'lease_owner', 'lease_until', 'last_error'])
          .where('kind', '=', 'authorization')
          .where('subject_id', 'in', authorizations)
          .orderBy('id')
          .execute();
      expect((await messages()).map((row) => row.state)).toEqual(authorizations.map(() => 'pending'));

      const env = { PEER_ALLOWED_HOSTS: LOOPBACK_PEERS, PEER_READ_TIMEOUT_MS: '120000' };
      const first = await startServer(serverEnv(ctx().config, env));
      servers.push(first);
      await until(async () => proxy!.held.length === 6 || undefined, 'six deliveries held');
      expect(proxy.answers.map((answer) => [answer.status, JSON.parse(answer.body).received])).toEqual([
        [200, 'applied'],
        [200, 'applied'],
        [200, 'applied'],
      ]);
      first.child.kill('SIGKILL');
      await first.exited;
      const inFlight = await messages();
      expect(inFlight.map((row) => [row.state, row.attempts, row.lease_owner !== null])).toEqual(
        authorizations.map(() => ['pending', 0, true]),
      );

      // restarted: the dead run's leases are taken over at once and every message is delivered
      proxy.mode = 'pass';
      const second = await startServer(serverEnv(ctx().config, env));
      servers.push(second);
      const delivered = await until(async () => {
        const rows = await messages();
        return rows.every((row) => row.state === 'delivered') ? rows : undefined;
      }, 'every message delivered');
      expect(delivered.map((row) => [row.state, row.attempts, row.lease_owner, row.lease_until, row.last_error])).toEqual(
        authorizations.map(() => ['delivered', 1, null, null, null]),
      );
      // the three the peer had applied are acknowledged as duplicates, not applied again
      const replies = new Map<string, string[]>();
      for (const answer of proxy.answers) {
        replies.set(answer.messageId, [...(replies.get(answer.messageId) ?? []), JSON.parse(answer.body).received as string]);
      }
      expect([...replies.values()].map((received) => received.join(',')).sort()).toEqual([
        'applied',
        'applied',
        'applied',
        'applied,duplicate',
        'applied,duplicate',
        'applied,duplicate',
      ]);
      const orders = await downstream.call('GET', '/ui/order/list?numberOfItems=500');
      const received = (orders.json() as TPage<TOrder>).data.map((order) => order.orderIdentity.authorizationId);
      for (const authorizationId of authorizations) expect(received.filter((id) => id === authorizationId)).toHaveLength(1);
      second.child.kill('SIGKILL');
      await second.exited;
    }, 180_000);
  },
  { PEER_ALLOWED_HOSTS: LOOPBACK_PEERS, PUBLIC_URL: downstream.localUrl },
);

/** An address that forwards every request to `target`, or, while `holding`, keeps the writes (PUT) unanswered. */
async function gateProxy(target: () => string): Promise<{ url: string; holding: boolean; held: number; close(): Promise<void> }> {
  const state = { holding: false, held: 0 };
  const server = http.createServer((request, response) => {
    if (state.holding && request.method === 'PUT') {
      state.held += 1;
      return;
    }
    const forwarded = http.request(
      `${target()}${request.url}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  return listenOnLoopback(server, state);
}

let emulators: StorageEmulators | undefined;
afterAll(async () => {
  await emulators?.stop();
});

describeEachDatabase(
  'a storage move survives kill -9 of the server running it',
  (ctx) => {
    const servers: ServerProcess[] = [];
    let proxy: Awaited<ReturnType<typeof gateProxy>> | undefined;
    afterAll(async () => {
      await killAll(servers);
      await proxy?.close();
    });

    it('leaves a move whose last attempt died failed, not running, and moves everything when selected again', async () => {
      emulators ??= await startStorageEmulators();
      const place = await emulators.createPlace(`crash-${ctx().kind}`);
      const s3rver = place.s3Credentials.awsStorageEndpoint!;
      proxy = await gateProxy(() => s3rver);
      const admin = await ctx().adminToken();
      const pkg = await createPackage(ctx());
      const files: { file: TPackageFile; bytes: Buffer }[] = [];
      for (let index = 0; index < 3; index += 1) {
        const bytes = randomBytes(200_000 + index);
        files.push({ file: await uploadDesignFile(ctx(), pkg.dsiId, bytes, true), bytes });
      }
      const db = ctx().app.services.database.db;
      const credentials = { ...place.s3Credentials, awsStorageEndpoint: proxy.url };
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', {
        token: admin,
        body: { identifier: 'aws', credentials },
      });
      expect(selected.statusCode, selected.body).toBe(200);
      expect(selected.json<TStorageProvider>().move).toMatchObject({ from: 'local', to: 'aws', state: 'running' });
      // the move's job is on its last attempt (as after nine that failed), and its first copy is held
      const job = await db.selectFrom('jobs').select('id').where('kind', '=', 'storage.move').executeTakeFirstOrThrow();
      await db.updateTable('jobs').set({ max_attempts: 1 }).where('id', '=', job.id).execute();
      proxy.holding = true;

      const env = { STORAGE_ENDPOINT_ALLOWED_HOSTS: '127.0.0.0/8' };
      const first = await startServer(serverEnv(ctx().config, env));
      servers.push(first);
      await until(async () => proxy!.held > 0, 'the move copying its first object');
      first.child.kill('SIGKILL');
      await first.exited;
      proxy.holding = false;

      // restarted: the job whose runner died during its last attempt is given up, and so is the move
      const second = await startServer(serverEnv(ctx().config, env));
      servers.push(second);
      const call = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
        const response = await fetch(`${second.url}${route}`, {
          method,
          headers: { authorization: `Bearer ${admin}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as TStorageProvider & { errorToken?: string } };
      };
      const failed = await until(async () => {
        const answer = await call('GET', '/ui/admin/storage/provider');
        const state = (await db.selectFrom('jobs').select('state').where('id', '=', job.id).executeTakeFirstOrThrow()).state;
        // the job is given up first, then its move
        return state === 'failed' && answer.body.move?.state !== 'running' ? answer : undefined;
      }, 'the move job given up');
      expect(failed.body.move).toMatchObject({
        from: 'local',
        to: 'aws',
        state: 'failed',
        lastError: expect.stringContaining('its runner stopped answering during the last attempt'),
      });
      // every file still reads (from the old provider where it was not moved)
      for (const { file, bytes } of files) {
        const got = await getBytes(second.url, `/ui/package/files/download?fileId=${file.fileId}`, admin);
        expect([got.status, sha256(got.bytes)]).toEqual([200, sha256(bytes)]);
      }

      // selecting the same provider again starts the move again, and it finishes
      const again = await call('POST', '/ui/admin/storage/provider', { identifier: 'aws', credentials });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.move?.state).toBe('running');
      const done = await until(async () => {
        const { body } = await call('GET', '/ui/admin/storage/provider');
        return body.move?.state === 'running' ? undefined : body.move;
      }, 'the move finished');
      expect(done).toMatchObject({ state: 'done', lastError: null });
      expect((await storageFiles(ctx().config)).objects).toEqual([]);
      for (const { file, bytes } of files) {
        const got = await getBytes(second.url, `/ui/package/files/download?fileId=${file.fileId}`, admin);
        expect([got.status, sha256(got.bytes)]).toEqual([200, sha256(bytes)]);
      }
      second.child.kill('SIGKILL');
      await second.exited;
    }, 180_000);
  },
  { STORAGE_ENDPOINT_ALLOWED_HOSTS: '127.0.0.0/8' },
);
