// `npm run bench`: requests/s and p99 of the session check (GET /ui/user/login) and the user
// list (GET /ui/user/list) on a started server with SQLite, next to a bare Fastify route.
// Usage: npm run bench [-- --duration 10 --connections 20]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from '../test/helpers/server-process.js';
import { benchPassword, measure, startBenchServer } from './bench-support.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    users: { type: 'string', default: '200' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const here = import.meta.dirname;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-bench-'));
const { server, auth } = await startBenchServer(dataDir);
const bare = await startServer({}, { file: path.resolve(here, 'bare-server.ts'), inheritEnv: true });
try {
  for (let i = 0; i < Number(values.users); i += 1) {
    await fetch(`${server.url}/ui/user/add`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: `bench${i}`,
        password: benchPassword,
        firstName: 'Bench',
        lastName: `User ${i}`,
        email: `bench${i}@example.com`,
        role: 'USER',
        timeZone: 'UTC',
        language: 'en_US',
      }),
    });
  }
  console.log(
    `SQLite, ${Number(values.users) + 1} users, ${connections} connections, ${duration} s each, ${os.cpus().length} cores`,
  );
  const rows = [
    await measure('bare Fastify route', { url: `${bare.url}/bare`, connections, duration }),
    await measure('GET /ui/user/login (session check)', {
      url: `${server.url}/ui/user/login`,
      connections,
      duration,
      headers: auth,
    }),
    await measure('GET /ui/user/list (page 1 of 10)', {
      url: `${server.url}/ui/user/list`,
      connections,
      duration,
      headers: auth,
    }),
    await measure('GET /ui/user/list (page 15 of 10)', {
      url: `${server.url}/ui/user/list?pageNum=15`,
      connections,
      duration,
      headers: auth,
    }),
  ];
  console.table(rows);
} finally {
  await Promise.all([server.stop(), bare.stop()]);
  await fs.rm(dataDir, { recursive: true, force: true });
}
