// Quality parts search benchmark on a started server (HTTP, autocannon):
//
//   npm run bench:quality [-- --databases sqlite,postgres --parts 1000000 --duration 5 --connections 4]
//
// Seeds `--parts` inspected parts (builds of 1,000 parts, 20 machines, 20 designs, 50 orders of 10
// supplier companies, inspections over 365 days, about 8 % failed with one of 6 reasons) with
// batched multi-row inserts in transactions, then measures POST /ui/qms/parts/search with its
// statistics: unfiltered (every figure over all parts) and filtered (one supplier, 30 days).
// The bare limit runs the same SQL (the two pages with their counts and the six statistics
// queries of `PartsSearchRepository`) through the same driver in this process, `--connections`
// at a time, with no HTTP, no validation and no mapping.
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { TQualitySearchRequest } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type Database } from '../src/db/database.js';
import type { PartsTable } from '../src/db/schema-trace.js';
import { PartsSearchRepository, type PartsFilter } from '../src/modules/quality/parts-search.repository.js';
import { searchPlan } from '../src/modules/quality/search-rules.js';
import { benchTarget, measure, seededOrderRow, startBenchServer, type Target } from './bench-support.js';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '4' },
    parts: { type: 'string', default: '1000000' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const partCount = Number(values.parts);

const DAY_MS = 86_400_000;
const start = Date.parse('2025-06-01T00:00:00Z');
const reasons = ['warped', 'porosity', 'dimension', 'surface', 'delamination', 'support marks'];

interface World {
  devices: string[];
  dsiIds: string[];
  orders: { id: string; dsiId: string; company: string }[];
}

/** The orders, then builds and parts in batches; answers the seconds it took. */
async function seed(t: Target, count: number): Promise<{ seconds: number; world: World }> {
  const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
  await database.migrate();
  const started = performance.now();
  try {
    const dsiIds = Array.from({ length: 20 }, () => randomUUID());
    const devices = Array.from({ length: 20 }, () => randomUUID());
    const orderRows = Array.from({ length: 50 }, (_, i) => seededOrderRow(i, dsiIds, start, { companies: 10, users: 5 }));
    await database.db.insertInto('orders').values(orderRows).execute();
    const world: World = {
      devices,
      dsiIds,
      orders: orderRows.map((row) => ({ id: row.id, dsiId: row.dsi_id, company: row.company_name })),
    };
    const perBuild = 1000;
    const part = (i: number, buildId: string, order: World['orders'][number], device: string) => {
      const failed = i % 13 === 0;
      const inspected = new Date(start + (i % 365) * DAY_MS + (i % 86_000) * 1000).toISOString();
      const row: PartsTable = {
        id: randomUUID(),
        build_id: buildId,
        device_id: device,
        authorization_id: order.id,
        order_id: order.id,
        dsi_id: order.dsiId,
        serial_number: `B-${i}`,
        qms_state: failed ? 'FAILURE' : 'MANUFACTURED',
        counted: 0,
        event_id: buildId,
        revoked: 0,
        created_at: inspected,
        inspection_id: null,
        inspection_result: failed ? 'failed' : 'passed',
        inspected_at: inspected,
        technician: `tech${i % 20}`,
        failure_reason: failed ? reasons[i % reasons.length]! : null,
      };
      return row;
    };
    const batch = t.kind === 'sqlite' ? 1_500 : 3_000;
    for (let done = 0; done < count; done += perBuild * 20) {
      await database.transaction(async (trx) => {
        for (let b = done; b < Math.min(count, done + perBuild * 20); b += perBuild) {
          const buildNumber = b / perBuild;
          const order = world.orders[buildNumber % world.orders.length]!;
          const device = devices[buildNumber % devices.length]!;
          const buildId = randomUUID();
          const at = new Date(start + (buildNumber % 365) * DAY_MS).toISOString();
          await trx
            .insertInto('builds')
            .values({
              id: buildId,
              device_id: device,
              authorization_id: order.id,
              order_id: order.id,
              dsi_id: order.dsiId,
              job_id: `job-${buildNumber}`,
              state: 'ended',
              quantity: perBuild,
              started_at: at,
              finished_at: at,
              created_at: at,
              updated_at: at,
            })
            .execute();
          const end = Math.min(count, b + perBuild);
          for (let s = b; s < end; s += batch) {
            const rows = Array.from({ length: Math.min(batch, end - s) }, (_, k) => part(s + k, buildId, order, device));
            await trx.insertInto('parts').values(rows).execute();
          }
        }
      });
    }
    if (t.kind === 'postgres') await sql`vacuum analyze`.execute(database.db);
    else await sql`analyze`.execute(database.db);
    return { seconds: (performance.now() - started) / 1000, world };
  } finally {
    await database.close();
  }
}

/** The SQL of one search, straight through the driver: both pages with their counts and the statistics. */
async function bareSearch(database: Database, filter: PartsFilter): Promise<void> {
  const repository = new PartsSearchRepository(database.db);
  const sort = { sortBy: 'inspectedAt' as const, sortOrder: 'desc' as const };
  const page = { pageNum: 1, numberOfItems: 10 };
  await Promise.all([
    repository.page(filter, 'passed', page, sort),
    repository.page(filter, 'failed', page, sort),
    repository.totals(filter),
    repository.failuresByReason(filter, 50),
    repository.byGroup(filter, 'machine', 50),
    repository.byGroup(filter, 'design', 50),
    repository.byGroup(filter, 'supplier', 50),
    repository.overTime(filter, 366),
  ]);
}

/** p99 and mean of `work` run `connections` at a time for `duration` seconds. */
async function measureBare(title: string, work: () => Promise<void>) {
  const latencies: number[] = [];
  const until = performance.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        await work();
        latencies.push(performance.now() - began);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  const mean = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  return {
    title,
    'requests/s': Math.round(latencies.length / duration),
    'p99 ms': Math.round(p99),
    'mean ms': Number(mean.toFixed(2)),
  };
}

async function bench(kind: string) {
  const t = await benchTarget(kind, 'manifold-quality-bench-');
  try {
    const { seconds, world } = await seed(t, partCount);
    console.log(
      `${kind}: seeded ${partCount.toLocaleString('en')} inspected parts in ${seconds.toFixed(1)} s (${Math.round(partCount / seconds).toLocaleString('en')} rows/s)`,
    );
    const supplier = world.orders[0]!.company;
    const searches: { name: string; body: Partial<TQualitySearchRequest> }[] = [
      { name: 'unfiltered', body: {} },
      { name: `supplier + 30 days`, body: { supplier, from: '2025-09-01', to: '2025-09-30' } },
    ];
    const rows = [];
    const { server, auth } = await startBenchServer(t.dataDir, { DATABASE_URL: t.databaseUrl });
    try {
      for (const search of searches) {
        const probe = await fetch(`${server.url}/ui/qms/parts/search`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(search.body),
        });
        const answer = (await probe.json()) as { statistics: { inspected: number; failed: number } };
        console.log(`${kind}: ${search.name}: ${answer.statistics.inspected} inspected, ${answer.statistics.failed} failed`);
        rows.push(
          await measure(`${kind}: qms/parts/search ${search.name}`, {
            url: `${server.url}/ui/qms/parts/search`,
            method: 'POST',
            connections,
            duration,
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(search.body),
          }),
        );
      }
    } finally {
      await server.stop();
    }
    const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
    try {
      for (const search of searches) {
        const { window } = searchPlan({ sortBy: 'inspectedAt', ...search.body });
        const filter: PartsFilter = { supplier: search.body.supplier, window };
        rows.push(await measureBare(`${kind}: bare SQL ${search.name}`, () => bareSearch(database, filter)));
      }
    } finally {
      await database.close();
    }
    return rows;
  } finally {
    await t.drop();
    await fs.rm(t.dataDir, { recursive: true, force: true });
  }
}

console.log(`quality: ${connections} connections, ${duration} s per measurement, ${os.cpus().length} cores`);
const table = [];
for (const kind of values.databases.split(',').map((value) => value.trim())) table.push(...(await bench(kind)));
for (const kind of values.databases.split(',').map((value) => value.trim())) {
  const server = table.filter((row) => row.title.startsWith(`${kind}: qms`));
  const bare = table.filter((row) => row.title.startsWith(`${kind}: bare`));
  server.forEach((row, index) => {
    const limit = bare[index];
    if (limit)
      console.log(
        `${row.title}: p99 ${row['p99 ms']} ms, bare ${limit['p99 ms']} ms, ratio ${(row['p99 ms'] / Math.max(1, limit['p99 ms'])).toFixed(2)}`,
      );
  });
}
console.table(table);
