// `npm run bench`: requests/s and p99 of the session check (GET /ui/user/login) and the user
// list (GET /ui/user/list) on a started server with SQLite, next to a bare Fastify route.
// Usage: npm run bench [-- --duration 10 --connections 20]
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '20' }, users: { type: 'string', default: '200' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const here = import.meta.dirname;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function start(file: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i += 1) {
    try {
      await fetch(`${url}/healthz`);
      return { child, url };
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${file} did not start`);
}

async function measure(title: string, url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, connections, duration, headers });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { title, 'requests/s': Math.round(result.requests.average), 'p99 ms': result.latency.p99, 'mean ms': result.latency.average };
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-bench-'));
const password = 'Bench-password-1';
const server = await start(path.resolve(here, '../src/main.ts'), {
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: password,
  CONSOLE_DIR: path.join(dataDir, 'none'),
});
const bare = await start(path.resolve(here, 'bare-server.ts'), {});
try {
  const login = await fetch(`${server.url}/ui/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const { sessionToken } = (await login.json()) as { sessionToken: string };
  const auth = { authorization: `Bearer ${sessionToken}` };
  for (let i = 0; i < Number(values.users); i += 1) {
    await fetch(`${server.url}/ui/user/add`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: `bench${i}`,
        password,
        firstName: 'Bench',
        lastName: `User ${i}`,
        email: `bench${i}@example.com`,
        role: 'USER',
        timeZone: 'UTC',
        language: 'en_US',
      }),
    });
  }
  console.log(`SQLite, ${Number(values.users) + 1} users, ${connections} connections, ${duration} s each, ${os.cpus().length} cores`);
  const rows = [
    await measure('bare Fastify route', `${bare.url}/bare`),
    await measure('GET /ui/user/login (session check)', `${server.url}/ui/user/login`, auth),
    await measure('GET /ui/user/list (page 1 of 10)', `${server.url}/ui/user/list`, auth),
    await measure('GET /ui/user/list (page 15 of 10)', `${server.url}/ui/user/list?pageNum=15`, auth),
  ];
  console.table(rows);
} finally {
  server.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  await fs.rm(dataDir, { recursive: true, force: true });
}
