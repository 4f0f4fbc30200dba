// Home dashboard benchmark on a started server (HTTP, autocannon):
//
//   npm run bench:dashboard [-- --databases sqlite,postgres --parts 200000 --duration 5 --connections 4]
//
// Seeds `--parts` inspected parts over the last 365 days (the quality benchmark's seeding: builds
// of 1,000 parts, 50 orders), then measures GET /ui/dashboard as an ADMIN (every figure, peers and
// first run). The bare limit runs the same queries (`DashboardRepository` and the first run's setup
// checks) through the same driver in this process, `--connections` at a time, with no HTTP,
// validation or mapping.
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import os from 'node:os';
import { DASHBOARD_DAYS, DASHBOARD_PEERS, DASHBOARD_RECENT_EVENTS, type TDashboard } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { setupStepChecks } from '../src/modules/admin/setup-state.js';
import { DashboardRepository } from '../src/modules/dashboard/dashboard.repository.js';
import { dashboardDays, dashboardFigureQueries } from '../src/modules/dashboard/dashboard.service.js';
import { benchEachDatabase, benchTarget, measure, startBenchServer } from './bench-support.js';
import { measureBare, seededBenchOptions, seedInspectedParts } from './inspected-parts-seed.js';

const { databases, duration, connections, partCount } = seededBenchOptions(200_000);

async function bench(kind: string) {
  const t = await benchTarget(kind, 'manifold-dashboard-bench-');
  try {
    const { seconds } = await seedInspectedParts(t, partCount, Date.now() - 365 * 86_400_000);
    console.log(`${kind}: seeded ${partCount.toLocaleString('en')} inspected parts in ${seconds.toFixed(1)} s`);
    const rows = [];
    const { server, auth } = await startBenchServer(t.dataDir, { DATABASE_URL: t.databaseUrl });
    try {
      const probe = (await (await fetch(`${server.url}/ui/dashboard`, { headers: auth })).json()) as TDashboard;
      console.log(
        `${kind}: ${probe.orders.live} live orders, ${probe.parts.made} parts made and ${probe.parts.passed + probe.parts.failed} inspected in ${DASHBOARD_DAYS} days`,
      );
      rows.push(
        await measure(`${kind}: GET /ui/dashboard`, { url: `${server.url}/ui/dashboard`, connections, duration, headers: auth }),
      );
    } finally {
      await server.stop();
    }
    const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
    try {
      const repository = new DashboardRepository(database.db);
      const now = new Date();
      const from = `${dashboardDays(now)[0]!}T00:00:00.000Z`;
      // each query alone, one at a time: where the time goes
      const alone: Record<string, () => Promise<unknown>> = {
        liveOrders: () => repository.liveOrders(now.toISOString()),
        authorizationsWaiting: () => repository.authorizationsWaiting(),
        machinesByRegistration: () => repository.machinesByRegistration(),
        machinesPrinting: () => repository.machinesPrinting(),
        machinesOffline: () => repository.machinesOffline(),
        jobsInProgress: () => repository.jobsInProgress(),
        recentEvents: () => repository.recentEvents(DASHBOARD_RECENT_EVENTS),
        partsMadePerDay: () => repository.partsMadePerDay(from),
        inspectionsPerDay: () => repository.inspectionsPerDay(from),
        peers: () => repository.peers(DASHBOARD_PEERS),
        setupChecks: () => Promise.all(setupStepChecks.map((check) => check.isComplete(database))),
      };
      const means: string[] = [];
      for (const [name, run] of Object.entries(alone)) {
        const began = performance.now();
        for (let i = 0; i < 10; i += 1) await run();
        means.push(`${name} ${((performance.now() - began) / 10).toFixed(1)}`);
      }
      console.log(`${kind}: each query alone, mean ms: ${means.join(', ')}`);
      rows.push(
        await measureBare(`${kind}: bare SQL`, { duration, connections }, async () => {
          const [, peers] = await Promise.all([
            dashboardFigureQueries(repository, new Date().toISOString(), from),
            repository.peers(DASHBOARD_PEERS),
            repository.peerCount(),
            ...setupStepChecks.map((check) => check.isComplete(database)),
          ]);
          await repository.outboxByPeer(peers.map((peer) => peer.id));
        }),
      );
    } finally {
      await database.close();
    }
    return rows;
  } finally {
    await t.drop();
  }
}

console.log(`dashboard: ${connections} connections, ${duration} s per measurement, ${os.cpus().length} cores`);
await benchEachDatabase(databases, bench, 'GET /ui/dashboard', (kind) => `${kind}: dashboard`);
