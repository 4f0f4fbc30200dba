// Event ingestion benchmark on a started server (HTTP):
//
//   npm run bench:ingest [-- --databases sqlite,postgres --machines 4 --batches 20 --batch 500 --single 400 --profile DIR]
//     --machines simulated machines (registered and approved through the API, EC keys) each send
//     --batches batches of --batch events concurrently: POST /stp/event with the list form in a
//     signed STP envelope (docs/traceability.md), one request at a time per machine, each event
//     signed by the machine (signed before the clock starts: a machine signs as it works) and
//     chained to the one before. Durable: SQLite in WAL with synchronous FULL (the server's
//     production setting), PostgreSQL with its default fsync. Every answer must be 200 with every
//     event stored. Then --single events per machine one request each (POST /stp/event with one
//     event), for reference. CPU: the server process's CPU time (all threads) per 1,000 events
//     while the batches ran, and the bare program's (SQLite: in-process; PostgreSQL: not measured,
//     its work is in the database server) — figures that hold whatever else shares the machine.
//   The bare limit: the same event rows, inserted by a minimal program with the same driver
//   (better-sqlite3 / pg) into a fresh database of the same schema, --batch rows per transaction
//   in multi-row inserts, as many writers as machines (SQLite has one writer connection, like the
//   server). The ratio is server ÷ bare.
//   --profile DIR: the server runs with --cpu-prof into DIR (open the .cpuprofile in Chrome DevTools).
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import SQLite from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { stpSignedContent, type TCanonicalTraceEvent, type TTraceEventKind } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { createDatabase } from '../src/db/database.js';
import type { TraceEventRow } from '../src/db/schema-trace.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { canonicalEvent, eventHash, STP_EVENT_PATH } from '../src/modules/events/trace-event-format.js';
import { benchTarget, provisionBenchServer, registerBenchMachine, startBenchCaller, type Target } from './bench-support.js';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres' },
    machines: { type: 'string', default: '4' },
    batches: { type: 'string', default: '20' },
    batch: { type: 'string', default: '500' },
    single: { type: 'string', default: '400' },
    profile: { type: 'string' },
  },
});
const machineCount = Number(values.machines);
const batches = Number(values.batches);
const batchSize = Number(values.batch);
const singles = Number(values.single);

/** Kinds a machine reports outside a licence (no authorization to set up, no job effects). */
const KINDS: TTraceEventKind[] = ['machineIdle', 'machineDataStored', 'publicFileAccessed', 'machineOffline'];

interface Machine {
  deviceId: string;
  signingKeyPem: string;
  head: string | null;
}

interface SignedEvent {
  event: TCanonicalTraceEvent;
  hash: string;
  proof: { format: 'stp'; envelope: Awaited<ReturnType<typeof envelope>> };
}

async function envelope(machine: Machine, body: Record<string, unknown>) {
  const unsigned = {
    deviceId: machine.deviceId,
    timestamp: new Date().toISOString(),
    nonce: randomBytes(16).toString('base64url'),
    body,
  };
  const signature = await signDetachedJws(canonicalJson(stpSignedContent(unsigned, STP_EVENT_PATH)), machine.signingKeyPem);
  return { ...unsigned, signature };
}

/** The machine's next `count` events of its chain, each signed in its own envelope (its proof). */
async function signEvents(machine: Machine, count: number): Promise<SignedEvent[]> {
  const events: SignedEvent[] = [];
  for (let index = 0; index < count; index += 1) {
    const event = canonicalEvent(
      {
        eventId: randomUUID(),
        kind: KINDS[index % KINDS.length]!,
        occurredAt: new Date().toISOString(),
        authorizationId: null,
        jobId: null,
        quantity: null,
        previousHash: machine.head,
        data: { counter: String(index), temperature: (200 + (index % 50)).toFixed(1) },
      },
      machine.deviceId,
    );
    machine.head = eventHash(event);
    const { deviceId: _deviceId, ...body } = event;
    events.push({ event, hash: machine.head, proof: { format: 'stp', envelope: await envelope(machine, body) } });
  }
  return events;
}

/** The row the server stores for an event (the bare program stores the same). */
function rowOf(signed: SignedEvent, sequence: number, now: string): TraceEventRow {
  const { event } = signed;
  return {
    event_id: event.eventId,
    device_id: event.deviceId,
    sequence,
    kind: event.kind,
    occurred_at: event.occurredAt,
    authorization_id: null,
    order_id: null,
    dsi_id: null,
    job_id: null,
    quantity: null,
    data: JSON.stringify(event.data),
    previous_hash: event.previousHash,
    event_hash: signed.hash,
    chain_finding: null,
    source: 'stp',
    proof: JSON.stringify(signed.proof),
    received_at: now,
  };
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${STP_EVENT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /stp/event: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const rate = (count: number, seconds: number) => Math.round(count / seconds);

/** CPU seconds (user + system, every thread) a process has used so far (Linux /proc; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU milliseconds per 1,000 events: what the work costs whatever else shares the machine. */
const cpuPerThousand = (cpu: number, count: number) => Math.round((cpu * 1e6) / count);

async function benchServer(t: Target) {
  const { server, call } = await startBenchCaller(t, values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : []);
  try {
    const { root } = await provisionBenchServer(call);
    const machines: Machine[] = [];
    for (let index = 0; index < machineCount; index += 1) {
      machines.push({ ...(await registerBenchMachine(call, root, `bench-machine-${index}`)), head: null });
    }
    const batched = await Promise.all(machines.map((machine) => signEvents(machine, batches * batchSize)));
    const pid = server.child.pid!;
    let cpu = cpuSeconds(pid);
    let started = performance.now();
    await Promise.all(
      machines.map(async (machine, index) => {
        const events = batched[index]!;
        for (let start = 0; start < events.length; start += batchSize) {
          const list = events.slice(start, start + batchSize).map(({ proof }) => ({ proof }));
          const answer = await post(server.url, await envelope(machine, { events: list }));
          if (answer.stored !== list.length) throw new Error(`batch: ${JSON.stringify(answer).slice(0, 200)}`);
        }
      }),
    );
    const batchedSeconds = (performance.now() - started) / 1000;
    const batchedCpu = cpuSeconds(pid) - cpu;
    const single = await Promise.all(machines.map((machine) => signEvents(machine, singles)));
    cpu = cpuSeconds(pid);
    started = performance.now();
    await Promise.all(
      machines.map(async (_machine, index) => {
        for (const { proof } of single[index]!) {
          const answer = await post(server.url, proof.envelope);
          if (answer.chainFinding !== null) throw new Error(`single: ${JSON.stringify(answer)}`);
        }
      }),
    );
    const singleSeconds = (performance.now() - started) / 1000;
    return {
      batched: rate(machines.length * batches * batchSize, batchedSeconds),
      batchedCpu: cpuPerThousand(batchedCpu, machines.length * batches * batchSize),
      single: rate(machines.length * singles, singleSeconds),
      rows: batched,
    };
  } finally {
    await server.stop();
  }
}

/** The same rows straight into a fresh database of the same schema: `batchSize` per transaction, one writer per machine. */
async function bare(kind: string, perMachine: SignedEvent[][]): Promise<{ rate: number; cpu?: number }> {
  const t = await benchTarget(kind, 'manifold-ingest-bare-');
  try {
    const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
    await database.migrate();
    await database.close();
    const now = new Date().toISOString();
    const rows = perMachine.map((events) => events.map((signed, index) => rowOf(signed, index + 1, now)));
    const columns = Object.keys(rows[0]![0]!) as (keyof TraceEventRow)[];
    const chunks = (list: TraceEventRow[]) =>
      Array.from({ length: Math.ceil(list.length / batchSize) }, (_, k) => list.slice(k * batchSize, (k + 1) * batchSize));
    const flat = (chunk: TraceEventRow[]) => chunk.flatMap((row) => columns.map((column) => row[column]));
    const total = rows.reduce((sum, list) => sum + list.length, 0);
    if (t.kind === 'sqlite') {
      const target = parseDatabaseUrl(t.databaseUrl, t.dataDir);
      if (target.kind !== 'sqlite') throw new Error('not a SQLite target');
      const connection = new SQLite(target.file);
      connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = FULL');
      const statements = new Map<number, SQLite.Statement>();
      const insert = (chunk: TraceEventRow[]) => {
        let statement = statements.get(chunk.length);
        if (!statement) {
          const tuple = `(${columns.map(() => '?').join(',')})`;
          statement = connection.prepare(
            `insert into trace_events (${columns.join(',')}) values ${Array(chunk.length).fill(tuple).join(',')}`,
          );
          statements.set(chunk.length, statement);
        }
        statement.run(flat(chunk));
      };
      const transaction = connection.transaction(insert);
      const cpu = process.cpuUsage();
      const started = performance.now();
      // the machines' batches interleaved, as they arrive at a single writer
      const queues = rows.map(chunks);
      for (let k = 0; queues.some((queue) => k < queue.length); k += 1) {
        for (const queue of queues) if (queue[k]) transaction(queue[k]!);
      }
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      connection.close();
      return { rate: rate(total, seconds), cpu: cpuPerThousand((used.user + used.system) / 1e6, total) };
    }
    const pool = new pg.Pool({ connectionString: t.databaseUrl, max: rows.length });
    try {
      const started = performance.now();
      await Promise.all(
        rows.map(async (list) => {
          const client = await pool.connect();
          try {
            for (const chunk of chunks(list)) {
              const tuples = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(',')})`);
              await client.query('begin');
              await client.query(`insert into trace_events (${columns.join(',')}) values ${tuples.join(',')}`, flat(chunk));
              await client.query('commit');
            }
          } finally {
            client.release();
          }
        }),
      );
      // the database server's CPU is not this process's: no CPU figure for PostgreSQL
      return { rate: rate(total, (performance.now() - started) / 1000) };
    } finally {
      await pool.end();
    }
  } finally {
    await t.drop();
    await fs.rm(t.dataDir, { recursive: true, force: true });
  }
}

const table: Record<string, string | number>[] = [];
for (const kind of values.databases.split(',')) {
  const t = await benchTarget(kind, 'manifold-ingest-bench-');
  try {
    const measured = await benchServer(t);
    const limit = await bare(kind, measured.rows);
    table.push({
      database: kind,
      machines: machineCount,
      'events/batch': batchSize,
      'events/s (batches)': measured.batched,
      'bare rows/s': limit.rate,
      ratio: Number((measured.batched / limit.rate).toFixed(2)),
      'server CPU ms/1000 events': measured.batchedCpu,
      'bare CPU ms/1000 rows': limit.cpu ?? '-',
      'events/s (one per request)': measured.single,
    });
  } finally {
    await t.drop();
    await fs.rm(t.dataDir, { recursive: true, force: true });
  }
}
console.log(
  `load ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')} (1/5/15 min), ${os.cpus().length} cores`,
);
console.table(table);
