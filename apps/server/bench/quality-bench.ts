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
import os from 'node:os';
import type { TQualitySearchRequest } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { PartsSearchRepository, type PartsFilter } from '../src/modules/quality/parts-search.repository.js';
import { searchPlan } from '../src/modules/quality/search-rules.js';
import { benchEachDatabase, benchTarget, measure, startBenchServer } from './bench-support.js';
import { measureBare, seededBenchOptions, seedInspectedParts } from './inspected-parts-seed.js';

const { databases, duration, connections, partCount } = seededBenchOptions(1_000_000);

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

async function bench(kind: string) {
  const t = await benchTarget(kind, 'manifold-quality-bench-');
  try {
    const { seconds, world } = await seedInspectedParts(t, partCount, Date.parse('2025-06-01T00:00:00Z'));
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
        rows.push(
          await measureBare(`${kind}: bare SQL ${search.name}`, { duration, connections }, () => bareSearch(database, filter)),
        );
      }
    } finally {
      await database.close();
    }
    return rows;
  } finally {
    await t.drop();
  }
}

console.log(`quality: ${connections} connections, ${duration} s per measurement, ${os.cpus().length} cores`);
await benchEachDatabase(databases, bench, 'qms', (_kind, row) => `${row.title}:`);
