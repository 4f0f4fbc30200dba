// Event ingestion benchmark on a started server (HTTP):
//
//   npm run bench:ingest [-- --databases sqlite,postgres --machines 4 --batches 20 --batch 500 --single 400
//                           --form batch-signed|list --rounds 3 --profile DIR]
//     --machines simulated machines (registered and approved through the API, EC keys) each send
//     --batches batches of --batch events concurrently, one request at a time per machine, each
//     event chained to the one before (docs/traceability.md). --form batch-signed (the default):
//     POST /stp/event with {batch: [...]}, the machine signs the batch's envelope once; --form list:
//     the list form, each event in its own signed envelope inside the batch's signed envelope.
//     Every request body is signed and written before the clock starts (real machines sign on
//     their own CPUs; here they would share the two cores with the server and the database). Durable: SQLite in WAL with synchronous FULL (the server's
//     production setting), PostgreSQL with its default fsync. Every answer must be 200 with every
//     event stored. Then --single events per machine one request each (POST /stp/event with one
//     event), for reference. CPU: the server process's CPU time (all threads) per 1,000 events
//     while the batches ran, and the bare program's (SQLite: in-process; PostgreSQL: not measured,
//     its work is in the database server) — figures that hold whatever else shares the machine.
//   The bare limit: the same event rows (and, batch-signed, the same batch envelope rows: one per
//   batch, as the server stores them), inserted by a minimal program with the same driver
//   (better-sqlite3 / pg) into a fresh database of the same schema, --batch rows per transaction
//   in one multi-row insert (and the batch's row), as many writers as machines (SQLite has one
//   writer connection, like the server). The ratio is server ÷ bare.
//   PostgreSQL also: the bare program with the audit records inserting each table's rows as one JSON
//   parameter (`json_populate_recordset`, as the server does) — the fastest raw insert found.
//   --rounds: the whole measure (server, then the bare programs on the same rows) this many times;
//   the table shows the medians (each round's figures are printed above it).
//   --profile DIR: the server runs with --cpu-prof into DIR (open the .cpuprofile in Chrome DevTools).
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import SQLite from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { stpSignedContent, type TCanonicalTraceEvent, type TTraceEventKind } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { createDatabase } from '../src/db/database.js';
import type { TraceEventRow } from '../src/db/schema-trace.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { batchIdOf, canonicalEvent, eventHash, STP_EVENT_PATH } from '../src/modules/events/trace-event-format.js';
import { benchTarget, provisionBenchServer, registerBenchMachine, startBenchCaller, type Target } from './bench-support.js';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres' },
    machines: { type: 'string', default: '4' },
    batches: { type: 'string', default: '20' },
    batch: { type: 'string', default: '500' },
    single: { type: 'string', default: '400' },
    form: { type: 'string', default: 'batch-signed' },
    profile: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
});
const machineCount = Number(values.machines);
const batches = Number(values.batches);
const batchSize = Number(values.batch);
const singles = Number(values.single);
const rounds = Number(values.rounds);
if (values.form !== 'batch-signed' && values.form !== 'list') throw new Error('--form is batch-signed or list');
const batchSigned = values.form === 'batch-signed';

/** Kinds a machine reports outside a licence (no authorization to set up, no job effects). */
const KINDS: TTraceEventKind[] = ['machineIdle', 'machineDataStored', 'publicFileAccessed', 'machineOffline'];

interface Machine {
  deviceId: string;
  signingKeyPem: string;
  head: string | null;
}

type Envelope = Awaited<ReturnType<typeof envelope>>;

interface SignedEvent {
  event: TCanonicalTraceEvent;
  hash: string;
  /** Its own signed envelope (list form), or its place in the batch's (batch-signed; set when the batch is signed). */
  proof: { format: 'stp'; envelope: Envelope } | { format: 'stp-batch'; batch: string; index: number } | null;
}

/** What the server stores of one batch-signed batch (the bare program stores the same). */
interface BatchRow {
  batch_id: string;
  device_id: string;
  envelope: string;
  received_at: string;
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

/** The machine's next `count` events of its chain; list form: each signed in its own envelope (its proof). */
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
    const proof = batchSigned ? null : ({ format: 'stp', envelope: await envelope(machine, body) } as const);
    events.push({ event, hash: machine.head, proof });
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

/**
 * The request body of one batch: batch-signed, the events' bodies in one envelope (and each
 * event's proof becomes its place in it); list form, each event's own signed envelope.
 */
async function batchEnvelope(machine: Machine, events: SignedEvent[], batchRows: BatchRow[]): Promise<Envelope> {
  if (!batchSigned) return envelope(machine, { events: events.map(({ proof }) => ({ proof })) });
  const signed = await envelope(machine, {
    batch: events.map(({ event }) => {
      const { deviceId: _deviceId, ...body } = event;
      return body;
    }),
  });
  const batch = batchIdOf(signed);
  for (const [index, event] of events.entries()) event.proof = { format: 'stp-batch', batch, index };
  batchRows.push({ batch_id: batch, device_id: machine.deviceId, envelope: JSON.stringify(signed), received_at: '' });
  return signed;
}

/** Posts a request body (the JSON text of an envelope, or the envelope). */
async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${STP_EVENT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
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
    const batchRows: BatchRow[][] = machines.map(() => []);
    // every request body signed and written before the clock starts: real machines sign on their
    // own CPUs, and here the simulated ones would take the two cores from the server and the
    // database (the bare program has no client at all); their timestamps stay inside the STP
    // window (±5 minutes) for any run of a few minutes
    const bodies = await Promise.all(
      machines.map(async (machine, index) => {
        const events = batched[index]!;
        const list: { body: string; count: number }[] = [];
        for (let start = 0; start < events.length; start += batchSize) {
          const part = events.slice(start, start + batchSize);
          list.push({ body: JSON.stringify(await batchEnvelope(machine, part, batchRows[index]!)), count: part.length });
        }
        return list;
      }),
    );
    const pid = server.child.pid!;
    let cpu = cpuSeconds(pid);
    let started = performance.now();
    await Promise.all(
      bodies.map(async (list) => {
        for (const { body, count } of list) {
          const answer = await post(server.url, body);
          if (answer.stored !== count) throw new Error(`batch: ${JSON.stringify(answer).slice(0, 200)}`);
        }
      }),
    );
    const batchedSeconds = (performance.now() - started) / 1000;
    const batchedCpu = cpuSeconds(pid) - cpu;
    // one event per request: each in its own envelope, signed before the clock starts
    const single = await Promise.all(
      machines.map(async (machine) => {
        const envelopes: Envelope[] = [];
        for (const { event } of await signEvents(machine, singles)) {
          const { deviceId: _deviceId, ...body } = event;
          envelopes.push(await envelope(machine, body));
        }
        return envelopes;
      }),
    );
    cpu = cpuSeconds(pid);
    started = performance.now();
    await Promise.all(
      machines.map(async (_machine, index) => {
        for (const signed of single[index]!) {
          const answer = await post(server.url, signed);
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
      batchRows,
    };
  } finally {
    await server.stop();
  }
}

/** One multi-row insert of the bare program: a table, its columns and the rows' values in column order. */
interface Insert {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/**
 * The same rows straight into a fresh database of the same schema: per batch, one transaction
 * with one multi-row insert of its `batchSize` event rows, its envelope's row (batch-signed) and,
 * `withAudit`, one multi-row insert of the audit record the server writes with each event; one
 * writer per machine.
 */
async function bare(
  kind: string,
  perMachine: SignedEvent[][],
  batchRows: BatchRow[][],
  withAudit: boolean,
  method: 'values' | 'json' = 'values',
): Promise<{ rate: number; cpu?: number }> {
  const t = await benchTarget(kind, 'manifold-ingest-bare-');
  try {
    const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
    await database.migrate();
    await database.close();
    const now = new Date().toISOString();
    const rows = perMachine.map((events) => events.map((signed, index) => rowOf(signed, index + 1, now)));
    const columns = Object.keys(rows[0]![0]!) as (keyof TraceEventRow)[];
    const batchColumns = ['batch_id', 'device_id', 'envelope', 'received_at'] as const;
    const auditColumns = ['event_type', 'actor', 'subject', 'details', 'source_ip', 'created_at'] as const;
    /** The audit record of an event's arrival, as the server writes it (an event outside a licence). */
    const auditOf = (row: TraceEventRow) => [
      row.kind,
      `device:${row.device_id}`,
      row.device_id,
      JSON.stringify({ eventId: row.event_id, authorizationId: null, jobId: null, quantity: null, occurredAt: row.occurred_at }),
      '127.0.0.1',
      now,
    ];
    /** A machine's transactions: each batch's inserts. */
    const transactions = (list: TraceEventRow[], machine: number): Insert[][] =>
      Array.from({ length: Math.ceil(list.length / batchSize) }, (_, k) => {
        const events = list.slice(k * batchSize, (k + 1) * batchSize);
        const batch = batchRows[machine]![k];
        const inserts: Insert[] = [];
        if (batch) {
          const values = batchColumns.map((column) => (column === 'received_at' ? now : batch[column]));
          inserts.push({ table: 'trace_event_batches', columns: batchColumns, rows: [values] });
        }
        inserts.push({ table: 'trace_events', columns, rows: events.map((row) => columns.map((column) => row[column])) });
        if (withAudit) inserts.push({ table: 'audit_events', columns: auditColumns, rows: events.map(auditOf) });
        return inserts;
      });
    /** The SQL of an insert, written once per table and row count (the driver's parameters in their places). */
    const texts = new Map<string, string>();
    const text = (insert: Insert, placeholder: (index: number) => string) => {
      const key = `${insert.table}|${insert.rows.length}`;
      let written = texts.get(key);
      if (written === undefined) {
        let index = 0;
        const tuples = insert.rows.map(() => `(${insert.columns.map(() => placeholder(++index)).join(',')})`);
        texts.set(key, (written = `insert into ${insert.table} (${insert.columns.join(',')}) values ${tuples.join(',')}`));
      }
      return written;
    };
    const total = rows.reduce((sum, list) => sum + list.length, 0);
    if (t.kind === 'sqlite') {
      const target = parseDatabaseUrl(t.databaseUrl, t.dataDir);
      if (target.kind !== 'sqlite') throw new Error('not a SQLite target');
      const connection = new SQLite(target.file);
      connection.pragma('journal_mode = WAL');
      connection.pragma('synchronous = FULL');
      const statements = new Map<string, SQLite.Statement>();
      const run = (inserts: Insert[]) => {
        for (const insert of inserts) {
          const sql = text(insert, () => '?');
          let statement = statements.get(sql);
          if (!statement) statements.set(sql, (statement = connection.prepare(sql)));
          statement.run(insert.rows.flat());
        }
      };
      const transaction = connection.transaction(run);
      const cpu = process.cpuUsage();
      const started = performance.now();
      // the machines' batches interleaved, as they arrive at a single writer
      const queues = rows.map((list, machine) => transactions(list, machine));
      for (let k = 0; queues.some((queue) => k < queue.length); k += 1) {
        for (const queue of queues) if (queue[k]) transaction(queue[k]!);
      }
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      connection.close();
      return { rate: rate(total, seconds), cpu: cpuPerThousand((used.user + used.system) / 1e6, total) };
    }
    const pool = new pg.Pool({ connectionString: t.databaseUrl, max: rows.length });
    // pg-pool's end() resolves once its clients are told to end, not once their backends are gone:
    // the scratch database's forced drop right after can still terminate one (57P01, harmless here)
    pool.on('error', () => undefined);
    try {
      const started = performance.now();
      await Promise.all(
        rows.map(async (list, machine) => {
          const client = await pool.connect();
          try {
            for (const inserts of transactions(list, machine)) {
              await client.query('begin');
              for (const insert of inserts) {
                if (method === 'json') {
                  // the rows as one JSON parameter read into the table's row type (what the server does)
                  const names = insert.columns.join(',');
                  const objects = insert.rows.map((row) =>
                    Object.fromEntries(insert.columns.map((column, i) => [column, row[i]])),
                  );
                  await client.query(
                    `insert into ${insert.table} (${names}) select ${names} from json_populate_recordset(null::${insert.table}, $1::json)`,
                    [JSON.stringify(objects)],
                  );
                } else {
                  await client.query(
                    text(insert, (index) => `$${index}`),
                    insert.rows.flat(),
                  );
                }
              }
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
  }
}

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round(((sorted[middle - 1]! + sorted[middle]!) / 2) * 100) / 100;
};
const ratio = (server: number, limit: number) => Number((server / limit).toFixed(2));

// --rounds times: the server, then each bare program right after it on the same rows, so a change
// in the machine's load between rounds moves both sides of a ratio; the table shows the medians
// (of the rates, and of each round's ratios)
const table: Record<string, string | number>[] = [];
for (const kind of values.databases.split(',')) {
  const figures: Record<string, number>[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const t = await benchTarget(kind, 'manifold-ingest-bench-');
    try {
      const measured = await benchServer(t);
      const limit = await bare(kind, measured.rows, measured.batchRows, false);
      const withAudit = await bare(kind, measured.rows, measured.batchRows, true);
      const json = kind === 'postgres' ? await bare(kind, measured.rows, measured.batchRows, true, 'json') : undefined;
      figures.push({
        server: measured.batched,
        bare: limit.rate,
        ratio: ratio(measured.batched, limit.rate),
        audit: withAudit.rate,
        auditRatio: ratio(measured.batched, withAudit.rate),
        ...(json ? { json: json.rate, jsonRatio: ratio(measured.batched, json.rate) } : {}),
        serverCpu: measured.batchedCpu,
        ...(limit.cpu !== undefined ? { bareCpu: limit.cpu } : {}),
        ...(withAudit.cpu !== undefined ? { auditCpu: withAudit.cpu } : {}),
        single: measured.single,
      });
    } finally {
      await t.drop();
    }
  }
  const of = (name: string) => (figures[0]![name] === undefined ? '-' : median(figures.map((figure) => figure[name]!)));
  table.push({
    database: kind,
    form: values.form,
    machines: machineCount,
    'events/batch': batchSize,
    rounds,
    'events/s (batches)': of('server'),
    'bare rows/s': of('bare'),
    ratio: of('ratio'),
    'bare+audit rows/s': of('audit'),
    'ratio (+audit)': of('auditRatio'),
    'bare+audit json rows/s': of('json'),
    'ratio (json)': of('jsonRatio'),
    'server CPU ms/1000 events': of('serverCpu'),
    'bare CPU ms/1000 rows': of('bareCpu'),
    'bare+audit CPU ms/1000': of('auditCpu'),
    'events/s (one per request)': of('single'),
  });
  console.log(`${kind}: every round (events/s; bare, bare+audit${kind === 'postgres' ? ', bare+audit json' : ''} rows/s):`);
  for (const figure of figures) {
    console.log(
      `  ${figure.server}; ${figure.bare} (${figure.ratio}), ${figure.audit} (${figure.auditRatio})` +
        (figure.json !== undefined ? `, ${figure.json} (${figure.jsonRatio})` : ''),
    );
  }
}
console.log(
  `load ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')} (1/5/15 min), ${os.cpus().length} cores`,
);
console.table(table);
