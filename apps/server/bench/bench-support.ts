import autocannon from 'autocannon';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { OrderValues } from '../src/db/schema-licensing.js';
import { createScratchDatabase } from '../test/helpers/database-servers.js';
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
export function startBenchProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServer(
    {
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: benchPassword,
      CONSOLE_DIR: path.join(dataDir, 'none'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    { inheritEnv: true },
  );
}

/** `startBenchProcess` with the first administrator logged in. */
export async function startBenchServer(dataDir: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const server = await startBenchProcess(dataDir, env);
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

/** Resident set size of a process, MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
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
  kind: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl: string;
  drop(): Promise<void>;
}

/** A scratch database of `kind` (sqlite, or postgres from TEST_POSTGRES_URL) and a data directory for a benchmark server. */
export async function benchTarget(kind: string, prefix: string): Promise<Target> {
  const dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  if (kind === 'postgres') {
    const scratch = await createScratchDatabase('postgres');
    return { kind, dataDir, databaseUrl: scratch.url, drop: scratch.drop };
  }
  if (kind !== 'sqlite') throw new Error(`--databases: ${kind} is not sqlite or postgres`);
  return { kind, dataDir, databaseUrl: `sqlite:${path.join(dataDir, 'bench.db')}`, drop: async () => undefined };
}

/** One row of the orders a benchmark seeds: order `i`, of one of `dsiIds`, spread over companies and users. */
export function seededOrderRow(
  i: number,
  dsiIds: string[],
  base: number,
  spread: { companies: number; users: number },
): OrderValues {
  const { companies, users } = spread;
  const created = new Date(base + i * 1000 + (i % 7) * 13).toISOString();
  return {
    id: randomUUID(),
    order_number: `SEED-${i}`,
    dedupe_key: `seed|SEED-${i}`,
    upstream_authorization_id: null,
    version: 1,
    company_name: `Company ${String(i % companies).padStart(3, '0')}`,
    source_company_name: 'Seed',
    source_date_created: null,
    source: 'ui',
    manage_user_id: null,
    user_id: `user${i % users}`,
    dsi_id: dsiIds[i % dsiIds.length]!,
    revision_id: dsiIds[i % dsiIds.length]!,
    dsi_version: 1,
    design_name: 'Seeded design',
    digest_value: '0'.repeat(64),
    quantity: 100,
    allocated: 0,
    expired_quantity: 0,
    expires_at: null,
    purpose: null,
    das_url: null,
    image_url: null,
    file_information_block_element_size: null,
    licensee_key_sn: 'seed',
    public_key_sn: null,
    key_role_sn: null,
    device_identity: null,
    parameter_version: null,
    device_parameters: '[]',
    quality_parameters: '[]',
    breakage_policy: 'Strict',
    breakage_value: null,
    serial_type: null,
    serial_prefix: null,
    serial_start: null,
    serial_end: null,
    serial_next: null,
    authorized_users: '[]',
    downstream_device: 0,
    archived: i % 10 === 0 ? 1 : 0,
    revoked: 0,
    revoked_at: null,
    replaces_order_id: null,
    sender_fingerprint: null,
    policy: '{}',
    created_at: created,
    updated_at: created,
  };
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
