// `npm run bench:request`: the authenticated request path (issue 17 item 1). GET /ui/user/login
// on a started server next to its bare limit (bare-session-server.ts: the same token check and
// the same joined query with the same driver, nothing else), on SQLite and PostgreSQL, and the
// ratio. Usage: npm run bench:request [-- --duration 5 --rounds 3 --connections 20 --db sqlite,postgres]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../test/helpers/server-process.js';
import { createScratchDatabase } from '../test/helpers/database-servers.js';
import { measure, startBenchServer } from './bench-support.js';

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
    const bare = await startServer(
      { DATA_DIR: dataDir, ...env },
      { file: path.resolve(here, 'bare-session-server.ts'), inheritEnv: true },
    );
    try {
      const load = { connections, duration, headers: auth };
      // warm both up (JIT, statement caches, pool connections), then alternate short rounds and
      // keep each side's best: on a shared machine a neighbour's burst then hits both alike
      await measure('warm-up', { ...load, url: `${bare.url}/ui/user/login`, duration: 2 });
      await measure('warm-up', { ...load, url: `${server.url}/ui/user/login`, duration: 2 });
      let limit = { title: '', 'requests/s': 0, 'p99 ms': 0, 'mean ms': 0 };
      let landed = limit;
      for (let round = 0; round < rounds; round += 1) {
        const a = await measure(`${kind}: bare limit`, { ...load, url: `${bare.url}/ui/user/login` });
        const b = await measure(`${kind}: GET /ui/user/login`, { ...load, url: `${server.url}/ui/user/login` });
        if (a['requests/s'] > limit['requests/s']) limit = a;
        if (b['requests/s'] > landed['requests/s']) landed = b;
      }
      rows.push(limit, { ...landed, ratio: Number((landed['requests/s'] / limit['requests/s']).toFixed(2)) });
    } finally {
      await Promise.all([server.stop(), bare.stop()]);
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
