// Trace list benchmark on a started server (HTTP, autocannon):
//
//   npm run bench:trace-lists [-- --databases sqlite,postgres --rows 1000000 --duration 5 --connections 10]
//     seeds trace_events and audit_events with --rows rows each (batched multi-row inserts in
//     transactions, straight into the tables; the seeding time is printed), then measures
//     GET /ui/event/list and GET /ui/audit/list, unfiltered and filtered (a design; a kind), on the
//     first and the last page.
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Insertable } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import type { AuditEventsTable } from '../src/db/schema.js';
import type { TraceEventsTable } from '../src/db/schema-trace.js';
import { benchTarget, measure, seedTable, startBenchServer, type Target } from './bench-support.js';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres' },
    rows: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
  },
});
const rows = Number(values.rows);
const duration = Number(values.duration);
const connections = Number(values.connections);

const machines = Array.from({ length: 20 }, () => randomUUID());
const designs = Array.from({ length: 20 }, () => randomUUID());
const kinds = ['jobStarted', 'jobEnded', 'machineIdle', 'qualityCheckPassed', 'quantityConsumed'];
const base = Date.parse('2025-01-01T00:00:00Z');

function traceEvent(i: number): Insertable<TraceEventsTable> {
  const time = new Date(base + i * 1000).toISOString();
  return {
    event_id: randomUUID(),
    device_id: machines[i % machines.length]!,
    sequence: Math.floor(i / machines.length) + 1,
    kind: kinds[i % kinds.length]!,
    occurred_at: time,
    authorization_id: null,
    order_id: null,
    dsi_id: designs[i % designs.length]!,
    job_id: null,
    quantity: null,
    data: '{}',
    previous_hash: null,
    event_hash: createHash('sha256').update(String(i)).digest('hex'),
    chain_finding: null,
    source: 'stp',
    proof: '{}',
    received_at: time,
  };
}

function auditEvent(i: number): Insertable<AuditEventsTable> {
  return {
    event_type: kinds[i % kinds.length]!,
    actor: `device:${machines[i % machines.length]!}`,
    subject: designs[i % designs.length]!,
    details: '{"eventId":"seeded"}',
    source_ip: '127.0.0.1',
    created_at: new Date(base + i * 1000).toISOString(),
  };
}

/** Batched multi-row inserts in transactions; answers the seconds taken for both tables. */
async function seed(t: Target): Promise<number> {
  const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
  await database.migrate();
  const started = performance.now();
  try {
    await seedTable(database, 'trace_events', 0, rows, traceEvent);
    await seedTable(database, 'audit_events', 0, rows, auditEvent);
  } finally {
    await database.close();
  }
  return (performance.now() - started) / 1000;
}

async function bench(kind: string) {
  const t = await benchTarget(kind, 'manifold-trace-bench-');
  const seconds = await seed(t);
  console.log(
    `${kind}: seeded ${rows.toLocaleString('en')} trace events and ${rows.toLocaleString('en')} audit records in ${seconds.toFixed(1)} s (${Math.round((2 * rows) / seconds).toLocaleString('en')} rows/s)`,
  );
  const { server, auth } = await startBenchServer(t.dataDir, { DATABASE_URL: t.databaseUrl });
  try {
    const results = [];
    const scenarios = [
      { name: 'event/list', url: '/ui/event/list?' },
      { name: 'event/list of one design', url: `/ui/event/list?dsiId=${designs[3]!}&` },
      { name: 'audit/list', url: '/ui/audit/list?' },
      { name: 'audit/list of one kind', url: '/ui/audit/list?kind=jobEnded&' },
    ];
    for (const scenario of scenarios) {
      const first = await fetch(`${server.url}${scenario.url}pageNum=1`, { headers: auth });
      if (!first.ok) throw new Error(`${scenario.name}: ${first.status} ${await first.text()}`);
      const { totalNumOfPages, totalNumOfItems } = (await first.json()) as { totalNumOfPages: number; totalNumOfItems: number };
      for (const [label, page] of [
        ['first', 1],
        ['last', totalNumOfPages],
      ] as const) {
        results.push(
          await measure(`${kind}: ${scenario.name}, ${label} page (${page} of ${totalNumOfPages}, ${totalNumOfItems} rows)`, {
            url: `${server.url}${scenario.url}pageNum=${page}`,
            connections,
            duration,
            headers: auth,
          }),
        );
      }
    }
    return results;
  } finally {
    await server.stop();
    await t.drop();
  }
}

for (const kind of values.databases.split(',')) console.table(await bench(kind.trim()));
