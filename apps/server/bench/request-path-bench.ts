// `npm run bench:request`: the authenticated request path (issue 17 item 1). GET /ui/user/login
// on a started server next to its bare limit (bare-session-server.ts: the same token check and
// the same joined query with the same driver, nothing else), on SQLite and PostgreSQL, and the
// ratio, and the same with `/metrics` on (METRICS_TOKEN); also each side's CPU per request and its ratio. Usage: npm run bench:request [-- --duration 5 --rounds 3 --connections 20 --db sqlite,postgres]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../test/helpers/server-process.js';
import { createScratchDatabase } from '../test/helpers/database-servers.js';
import { cpuSeconds, measure, startBenchProcess, startBenchServer } from './bench-support.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    db: { type: 'string', default: 'sqlite,postgres' },
    rounds: { type: 'string', default: '3' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const here = import.meta.dirname;

const rows = [];
for (const kind of values.db.split(',')) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-bench-'));
  const database = kind === 'postgres' ? await createScratchDatabase('postgres') : undefined;
  const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {};
  try {
    const { server, auth } = await startBenchServer(dataDir, env);
    const processes = [server];
    try {
      const bare = await startServer(
        { DATA_DIR: dataDir, ...env },
        { file: path.resolve(here, 'bare-session-server.ts'), inheritEnv: true },
      );
      processes.push(bare);
      // the same server again on the same database, with /metrics on (what it costs per request)
      const metered = await startBenchProcess(dataDir, { ...env, METRICS_TOKEN: randomBytes(24).toString('hex') });
      processes.push(metered);
      const sides = [
        { title: `${kind}: bare limit`, url: `${bare.url}/ui/user/login`, pid: bare.child.pid! },
        { title: `${kind}: GET /ui/user/login`, url: `${server.url}/ui/user/login`, pid: server.child.pid! },
        { title: `${kind}: GET /ui/user/login, metrics on`, url: `${metered.url}/ui/user/login`, pid: metered.child.pid! },
      ];
      // CPU per request of each side's process (user + system, all threads), every round: unlike
      // throughput it hardly depends on the client sharing the cores
      const cpu: number[][] = sides.map(() => []);
      const load = { connections, duration, headers: auth };
      // warm every side up (JIT, statement caches, pool connections), then alternate short rounds
      // and keep each side's best: on a shared machine a neighbour's burst then hits all alike.
      // Each round starts with the next side, so no side always runs in the same place.
      for (const side of sides) await measure('warm-up', { ...load, url: side.url, duration: 2 });
      const best: Awaited<ReturnType<typeof measure>>[] = [];
      for (let round = 0; round < rounds; round += 1) {
        for (let k = 0; k < sides.length; k += 1) {
          const i = (round + k) % sides.length;
          const side = sides[i]!;
          const before = cpuSeconds(side.pid);
          const figure = await measure(side.title, { ...load, url: side.url });
          cpu[i]!.push(((cpuSeconds(side.pid) - before) * 1e6) / (figure['requests/s'] * duration));
          if (!best[i] || figure['requests/s'] > best[i]['requests/s']) best[i] = figure;
        }
      }
      const limit = best[0]!['requests/s'];
      const cpuMedian = cpu.map((values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
      rows.push(
        ...best.map((figure, i) => {
          const cpuFigure = { 'CPU µs/request (median)': Number(cpuMedian[i]!.toFixed(1)) };
          if (i === 0) return { ...figure, ...cpuFigure };
          const ratio = Number((figure['requests/s'] / limit).toFixed(2));
          return { ...figure, ratio, ...cpuFigure, 'CPU ratio': Number((cpuMedian[0]! / cpuMedian[i]!).toFixed(2)) };
        }),
      );
    } finally {
      await Promise.all(processes.map((process) => process.stop()));
    }
  } finally {
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
console.log(
  `session check, ${connections} connections, best of ${rounds} alternating rounds of ${duration} s, ${os.cpus().length} cores`,
);
console.table(rows);
