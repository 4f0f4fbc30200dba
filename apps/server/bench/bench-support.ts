import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createCsr } from '../src/crypto/csr.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { generateKeyPair } from '../src/crypto/key-pairs.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { type Insertable, sql } from 'kysely';
import type { TPage } from '@manifold/contract';
import type { DatabaseKind } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import type { DB } from '../src/db/schema.js';
import { createScratchDatabase } from '../test/helpers/database-servers.js';
import { multipartForm } from '../test/helpers/multipart.js';
import { issue, testRoot } from '../test/helpers/test-pki.js';
export { seededOrderRow } from '../test/helpers/seeded-orders.js';
import { startServer, type ServerProcess } from '../test/helpers/server-process.js';

/** The first administrator's password on every benchmark server. */
export const benchPassword = 'Bench-password-1';

export interface BenchServer {
  server: ServerProcess;
  sessionToken: string;
  /** The `authorization` header of the administrator's session. */
  auth: Record<string, string>;
}

/** A server started for a benchmark with its data in `dataDir` (no console, warnings only); `env` adds or changes settings. */
export function startBenchProcess(
  dataDir: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  return startServer(
    {
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: benchPassword,
      CONSOLE_DIR: path.join(dataDir, 'none'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    { inheritEnv: true, nodeArgs },
  );
}

/** `startBenchProcess` with the first administrator logged in. */
export async function startBenchServer(
  dataDir: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<BenchServer> {
  const server = await startBenchProcess(dataDir, env, nodeArgs);
  try {
    const login = await fetch(`${server.url}/ui/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: benchPassword }),
    });
    if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
    const { sessionToken } = (await login.json()) as { sessionToken: string };
    return { server, sessionToken, auth: { authorization: `Bearer ${sessionToken}` } };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export interface Load {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
}

/** Requests/s, p99 and mean latency of `load`; any answer other than 2xx or any error fails the run. */
export async function measure(title: string, { url, connections, duration, headers = {}, method = 'GET', body }: Load) {
  const result = await autocannon({ url, connections, duration, headers, method, ...(body ? { body } : {}) });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return {
    title,
    'requests/s': Math.round(result.requests.average),
    'p99 ms': result.latency.p99,
    'mean ms': Number(result.latency.average.toFixed(2)),
  };
}

/** One row of a benchmark's table: `measure`'s or `measureBare`'s answer. */
export type Measured = Awaited<ReturnType<typeof measure>>;

/**
 * The first, a middle and the last page of a paged answer: the first call after a change (which
 * renews the list's count and anchors) and the first visit to each page (which lays the anchors up
 * to it) timed once, then each page measured twice in turn (`connections`, `duration` seconds each; the better kept). `pageOf`
 * finds the page in the answer's body. Answers the three measurements (first, middle, last), the
 * list's size and the slowest page's mean latency over the fastest's.
 */
export async function measurePages(
  title: string,
  auth: Record<string, string>,
  url: (page: number) => string,
  pageOf: (body: unknown) => TPage<unknown>,
  { connections, duration }: { connections: number; duration: number },
): Promise<{ rows: Measured[]; totalNumOfItems: number; ratio: number }> {
  const rows: Measured[] = [];
  // each timed call on a connection of its own: an idle kept-alive one may have been closed by the
  // server while the list was seeded
  const get = (target: string) =>
    new Promise<string>((resolve, reject) => {
      http
        .get(target, { headers: auth, agent: false }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () =>
            response.statusCode === 200 ? resolve(body) : reject(new Error(`${target}: ${response.statusCode} ${body}`)),
          );
        })
        .on('error', reject);
    });
  const renewing = performance.now();
  const { totalNumOfPages, totalNumOfItems } = pageOf(JSON.parse(await get(url(1))));
  console.log(`${title}: first call after a change (anchors renewed) ${(performance.now() - renewing).toFixed(0)} ms`);
  // the server's code warmed up on the first page, so the first measurement is not the slowest for
  // that (1 s, or a measurement's time when shorter)
  await measure(`${title}: warm-up`, { url: url(1), connections, duration: Math.min(1, duration), headers: auth });
  const pages = [
    ['first', 1],
    ['middle', Math.ceil(totalNumOfPages / 2)],
    ['last', totalNumOfPages],
  ] as const;
  for (const [label, page] of pages) {
    const laying = performance.now();
    await get(url(page));
    console.log(`${title}: first visit to the ${label} page ${(performance.now() - laying).toFixed(0)} ms`);
  }
  // two rounds over the three pages, each page's better kept: a neighbour's burst on this shared
  // machine then weighs on one measurement, not on the ratio
  for (let round = 0; round < 2; round += 1) {
    for (const [i, [label, page]] of pages.entries()) {
      const measured = await measure(`${title}, ${label} page (${page} of ${totalNumOfPages}, ${totalNumOfItems} rows)`, {
        url: url(page),
        connections,
        duration,
        headers: auth,
      });
      if (!rows[i] || measured['mean ms'] < rows[i]['mean ms']) rows[i] = measured;
    }
  }
  const means = rows.map((row) => row['mean ms']);
  const ratio = Math.max(...means) / Math.min(...means);
  console.log(`${title}: slowest page / fastest page ${ratio.toFixed(2)} (mean latency)`);
  return { rows, totalNumOfItems, ratio };
}

/**
 * Runs `bench` on each database of `databases` (comma-separated), then prints each served row
 * (its title starting `<kind>: <served>`) next to the bare limit in the same place among the rows
 * starting `<kind>: bare`, with the ratio of their p99, each line named by `name`; then the table.
 */
export async function benchEachDatabase(
  databases: string,
  bench: (kind: string) => Promise<Measured[]>,
  served: string,
  name: (kind: string, row: Measured) => string,
): Promise<void> {
  const kinds = databases.split(',').map((value) => value.trim());
  const table: Measured[] = [];
  for (const kind of kinds) table.push(...(await bench(kind)));
  for (const kind of kinds) {
    const bare = table.filter((row) => row.title.startsWith(`${kind}: bare`));
    table
      .filter((row) => row.title.startsWith(`${kind}: ${served}`))
      .forEach((row, index) => {
        const limit = bare[index];
        if (limit)
          console.log(
            `${name(kind, row)} p99 ${row['p99 ms']} ms, bare ${limit['p99 ms']} ms, ratio ${(row['p99 ms'] / Math.max(1, limit['p99 ms'])).toFixed(2)}`,
          );
      });
  }
  console.table(table);
}

/** Resident set size of a process, MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

let clockTicks: number | undefined;

/** The kernel's clock ticks per second, in which `/proc` counts CPU time. */
function ticksPerSecond(): number {
  return (clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
}

/**
 * `/proc/<pid>/stat`'s fields from the third (the state) on: index 11 is utime, 12 stime, 13 and 14
 * the waited-for children's, 19 the start time. The command name (field 2) may hold spaces, so the
 * fields are counted after its closing parenthesis.
 */
function procStat(pid: number | string): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`: unlike wall
 * time it hardly moves when other work shares the machine.
 */
export function cpuSeconds(pid: number, { children = false } = {}): number {
  const fields = procStat(pid);
  // utime, stime, and with `children` cutime, cstime: the children it has waited for (a wrk run)
  const used = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
  return used / ticksPerSecond();
}

/**
 * Counts the CPU seconds that every process whose command name is `name` spends from now on
 * (`postgres`: the database server's backends and helpers), in all and in the kernel (system time).
 * Counted per process (its pid and start time): a sum over `/proc` read before and after a window
 * loses everything a process had spent before the window when it ends inside it (a pool closing its
 * idle connections), which can leave the window's figure near zero or below. Here an ending
 * process loses only what it spent since the last {@link CommandCpu.sample}: sample while the
 * window runs (every second, say), and once at its end.
 */
export function commandCpu(name: string): CommandCpu {
  const ticks = ticksPerSecond();
  let seen = new Map<string, { user: number; system: number }>();
  let user = 0;
  let system = 0;
  const read = (count: boolean) => {
    const now = new Map<string, { user: number; system: number }>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
        const fields = procStat(entry);
        // utime, stime; the start time tells a reused pid from the process before it
        const used = { user: Number(fields[11]), system: Number(fields[12]) };
        const key = `${entry}:${fields[19]}`;
        now.set(key, used);
        if (!count) continue;
        // a process first seen now started inside the window: all it spent counts
        const before = seen.get(key) ?? { user: 0, system: 0 };
        user += used.user - before.user;
        system += used.system - before.system;
      } catch {
        // the process ended between the listing and the read
      }
    }
    seen = now;
  };
  read(false);
  return {
    sample: () => read(true),
    spent: () => ({ total: (user + system) / ticks, system: system / ticks }),
  };
}

export interface CommandCpu {
  /** Reads every such process's CPU time now, adding what each spent since the last reading. */
  sample(): void;
  /** The seconds counted so far, in all and in the kernel. */
  spent(): { total: number; system: number };
}

/** The machine's CPU time so far from `/proc/stat` (all cores, in ticks): idle (with I/O wait) and in all. */
export function machineCpu(): { idle: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { idle: fields[3]! + fields[4]!, total };
}

/** The share of the machine's CPU left idle since `before` (a {@link machineCpu} reading), in %. */
export function idlePercentSince(before: { idle: number; total: number }): number {
  const now = machineCpu();
  return Number(((100 * (now.idle - before.idle)) / Math.max(1, now.total - before.total)).toFixed(1));
}

/**
 * POSTs a multipart form as a stream: the text `fields`, then a `file` part named `fileName` with
 * the `size` bytes `source` yields (never held in memory). Answers the status and the body.
 */
export function streamMultipartUpload(
  url: string,
  token: string,
  form: { fields?: Record<string, string>; fileName: string; size: number; source: Readable },
): Promise<{ status: number; body: string }> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(form.fields ?? {})
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${form.fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + form.size + tail.length),
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.write(head);
    form.source.on('error', reject);
    form.source.on('end', () => request.end(tail));
    form.source.pipe(request, { end: false });
  });
}

export interface Target {
  kind: DatabaseKind;
  dataDir: string;
  databaseUrl: string;
  /** Drops the scratch database and removes the data directory. */
  drop(): Promise<void>;
}

/** A scratch database of `kind` (sqlite; postgres or mysql from TEST_POSTGRES_URL, TEST_MYSQL_URL) and a data directory for a benchmark server. */
export async function benchTarget(kind: string, prefix: string): Promise<Target> {
  const dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  const removeDataDir = () => fs.promises.rm(dataDir, { recursive: true, force: true });
  if (kind === 'postgres' || kind === 'mysql') {
    const scratch = await createScratchDatabase(kind);
    return {
      kind,
      dataDir,
      databaseUrl: scratch.url,
      drop: async () => {
        await scratch.drop();
        await removeDataDir();
      },
    };
  }
  if (kind !== 'sqlite') throw new Error(`--databases: ${kind} is not sqlite, postgres or mysql (MariaDB)`);
  return { kind, dataDir, databaseUrl: `sqlite:${path.join(dataDir, 'bench.db')}`, drop: removeDataDir };
}

/** A JSON call to a benchmark server as its administrator; a non-2xx answer throws. */
export type BenchCall = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<unknown>;

/** A benchmark server on `t` with the administrator's {@link BenchCall}. */
export async function startBenchCaller(
  t: Target,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<{ server: ServerProcess; call: BenchCall; auth: Record<string, string> }> {
  const { server, auth } = await startBenchServer(t.dataDir, { ...env, DATABASE_URL: t.databaseUrl }, nodeArgs);
  const call: BenchCall = async (method, url, body, headers = {}) => {
    const isBuffer = Buffer.isBuffer(body);
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: { ...auth, ...(body !== undefined && !isBuffer ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: isBuffer ? new Uint8Array(body) : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
    return text.startsWith('{') ? (JSON.parse(text) as unknown) : text;
  };
  return { server, call, auth };
}

/** Provisions the server (EC keys) under a new test root; answers the root and the server's signing certificate. */
export async function provisionBenchServer(call: BenchCall): Promise<{ root: DevelopmentCa; signing: string }> {
  const root = await testRoot('Bench root');
  await call('POST', '/ui/admin/provision', { keyType: 'EC' });
  const upload = (url: string, fields: Parameters<typeof multipartForm>[0]) => {
    const { body, headers } = multipartForm(fields);
    return call('POST', url, body, headers);
  };
  await upload('/ui/admin/upload/provision', {
    certificateType: 'trustAnchor',
    file: { filename: 'root.pem', content: root.certificatePem },
  });
  const csrs = (await call('GET', '/ui/admin/provision?csr=both')) as { signingCSR: string; encryptionCSR: string };
  const signing = await issue(root, csrs.signingCSR);
  await upload('/ui/admin/upload/provision', { certificateType: 'signing', file: { filename: 's.pem', content: signing } });
  await upload('/ui/admin/upload/provision', {
    certificateType: 'encryption',
    file: { filename: 'e.pem', content: await issue(root, csrs.encryptionCSR) },
  });
  return { root, signing };
}

/** Registers a machine (EC keys, certificates from `root`) and approves it; answers its id and signing key. */
export async function registerBenchMachine(
  call: BenchCall,
  root: DevelopmentCa,
  name: string,
): Promise<{ deviceId: string; signingKeyPem: string }> {
  const keys = { signing: await generateKeyPair('EC'), encryption: await generateKeyPair('EC') };
  const certificate = async (purpose: 'signing' | 'encryption') =>
    issue(root, await createCsr({ siteName: name, service: 'enforce', purpose, privateKeyPem: keys[purpose].privateKeyPem }));
  const apl = {
    deviceIdentity: { id: name, name, serialNumber: `SN-${name}`, model: 'X1', manufacturer: 'Acme' },
    parameters: [],
    signingCertificate: await certificate('signing'),
    encryptionCertificate: await certificate('encryption'),
    dateCreated: new Date().toISOString(),
  };
  const registered = (await call('POST', '/apl/registration/add', {
    aplType: 'enforce',
    apl,
    signature: await signDetachedJws(canonicalJson(apl), keys.signing.privateKeyPem),
  })) as { deviceId: string };
  await call('POST', '/ui/device/approve', { id: registered.deviceId, approve: true });
  return { deviceId: registered.deviceId, signingKeyPem: keys.signing.privateKeyPem };
}

/** Samples a process's resident memory every 50 ms while `work` runs; answers the peak (MiB). */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peakMiB = rssMiB(pid);
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB(pid))), 50);
  try {
    return { result: await work(), peakMiB };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Inserts `row(from)` … `row(from + count - 1)` into `table` in multi-row statements of as many
 * rows as the driver's parameter limit allows, 20 statements per transaction (the triggers keep
 * the lists' counts as they go); then the table is analysed.
 */
export async function seedTable<T extends keyof DB & string>(
  database: Database,
  table: T,
  from: number,
  count: number,
  row: (i: number) => Insertable<DB[T]>,
): Promise<void> {
  const columns = Object.keys(row(from)).length;
  const batch = Math.floor((database.dialect.kind === 'sqlite' ? 32_000 : 65_000) / columns);
  const end = from + count;
  for (let done = from; done < end; done += batch * 20) {
    await database.transaction(async (trx) => {
      for (let start = done; start < Math.min(end, done + batch * 20); start += batch) {
        const rows = Array.from({ length: Math.min(batch, end - start) }, (_, k) => row(start + k));
        await trx
          .insertInto(table)
          .values(rows as never)
          .execute();
      }
    });
  }
  await analyzeTables(database, [table]);
}

/** Fresh planner statistics (and, on PostgreSQL, a vacuumed visibility map) for these tables. */
export async function analyzeTables(database: Database, tables: readonly string[]): Promise<void> {
  const analyze = { postgres: 'vacuum analyze', mysql: 'analyze table', sqlite: 'analyze' }[database.dialect.kind];
  for (const table of tables) await sql.raw(`${analyze} ${table}`).execute(database.db);
}
