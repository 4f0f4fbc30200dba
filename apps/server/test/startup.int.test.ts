import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { until } from '@manifold/machine-simulator';
import { createScratchDatabase, watchConnections } from './helpers/database-servers.js';
import { freePort, spawnServer, startServer } from './helpers/server-process.js';

/** The npm packages a server process has loaded, as helpers/report-loaded-packages.mjs reports them. */
async function loadedPackages(server: Awaited<ReturnType<typeof startServer>>): Promise<string[]> {
  const before = server.output().stderr.length;
  server.child.kill('SIGUSR2');
  const line = await until(
    'the loaded packages',
    () => /loaded packages: (.*)\n/.exec(server.output().stderr.slice(before))?.[1],
  );
  return JSON.parse(line) as string[];
}

/** What a server needs only once it is configured to use it (lib/lazy-package.ts). */
const ON_FIRST_USE = [
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@azure/storage-blob',
  '@node-saml/node-saml',
  '@simplewebauthn/server',
];

describe('starting and stopping the server', () => {
  it('refuses a database type it cannot serve with a one-line reason', async () => {
    const urls = ['sqlserver://db/manifold', 'oracle://db/x', 'h2:mem:x', 'bogus://x'];
    const servers = await Promise.all(urls.map((url) => spawnServer({ DATABASE_URL: url, DATA_DIR: os.tmpdir() })));
    for (const server of servers) {
      expect(await server.exited).toBe(2);
      const lines = server.output().stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^manifold: DATABASE_URL: /);
    }
  }, 180_000);

  it('refuses an unreachable database with a one-line reason naming it, never its password', async () => {
    const unreachable = [
      ['postgres://nobody:secret-pw@127.0.0.1:1/none', 'postgres://nobody@127.0.0.1:1/none'],
      ['mysql://root:secret-pw@127.0.0.1:1/none?password=other-pw', 'mysql://root@127.0.0.1:1/none'],
    ];
    const servers = await Promise.all(
      unreachable.map(([url]) => spawnServer({ DATABASE_URL: url!, DATA_DIR: os.tmpdir(), LOG_LEVEL: 'silent' })),
    );
    for (const [index, server] of servers.entries()) {
      expect(await server.exited).toBe(1);
      expect(server.output().stderr.trim().split('\n')).toEqual([
        `manifold: cannot start: cannot connect to the database ${unreachable[index]![1]}: connect ECONNREFUSED 127.0.0.1:1`,
      ]);
      expect(server.output().stdout + server.output().stderr).not.toContain('secret-pw');
    }
  }, 180_000);

  it('refuses a port already in use with a one-line reason, exit code 1', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-port-'));
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const server = await spawnServer({
        DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: 'silent',
        CONSOLE_DIR: path.join(dataDir, 'none'),
      });
      expect(await server.exited).toBe(1);
      expect(server.output().stderr.trim().split('\n')).toEqual([
        `manifold: cannot start: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      ]);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('creates the first ADMIN with a generated password kept in a 0600 file, and stops on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-start-'));
    const port = await freePort();
    const server = await startServer({ DATA_DIR: dataDir, PORT: String(port), CONSOLE_DIR: path.join(dataDir, 'none') });
    try {
      const file = path.join(dataDir, 'initial-admin-password');
      const stat = await fs.stat(file);
      expect(stat.mode & 0o777).toBe(0o600);
      const password = (await fs.readFile(file, 'utf8')).trim();
      expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(server.output().stdout).toContain(password);
      const login = await fetch(`http://127.0.0.1:${port}/ui/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password }),
      });
      expect(login.status).toBe(200);
      expect((await fs.stat(path.join(dataDir, 'manifold.db'))).isFile()).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    // a second start on the same database creates nobody and logs no password
    const again = await startServer({ DATA_DIR: dataDir, PORT: String(port), CONSOLE_DIR: path.join(dataDir, 'none') });
    expect(await again.stop()).toBe(0);
    expect(again.output().stdout).not.toContain('Created the first administrator');
    await fs.rm(dataDir, { recursive: true, force: true });
  }, 180_000);

  it('loads no storage SDK, SAML, security-key or unused database driver until it is used', async () => {
    const preload = ['--import', path.join(import.meta.dirname, 'helpers/report-loaded-packages.mjs')];
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-start-'));
    const targets: { kind: string; url: string; drop?: () => Promise<void> }[] = [
      { kind: 'sqlite', url: `sqlite:${path.join(dataDir, 'manifold.db')}` },
    ];
    for (const kind of inject('databases').filter((name) => name !== 'sqlite') as ('postgres' | 'mysql')[]) {
      const scratch = await createScratchDatabase(kind);
      targets.push({ kind, url: scratch.url, drop: scratch.drop });
    }
    const drivers: Record<string, string> = { sqlite: 'better-sqlite3', postgres: 'pg', mysql: 'mysql2' };
    try {
      for (const target of targets) {
        const server = await startServer(
          {
            DATA_DIR: dataDir,
            DATABASE_URL: target.url,
            ADMIN_PASSWORD: 'Start-up-password-1',
            CONSOLE_DIR: path.join(dataDir, 'none'),
          },
          { nodeArgs: preload },
        );
        try {
          const loaded = await loadedPackages(server);
          // the packages the bundle leaves out are loaded from node_modules (scripts/server-build.mjs):
          // the native ones at start, the configured database driver as the server opens it
          expect(loaded, target.kind).toContain('@node-rs/argon2');
          expect(loaded, target.kind).toContain(drivers[target.kind]);
          const unused = [...ON_FIRST_USE, ...Object.values(drivers).filter((name) => name !== drivers[target.kind])];
          expect(
            loaded.filter((name) => unused.includes(name)),
            target.kind,
          ).toEqual([]);
        } finally {
          expect(await server.stop()).toBe(0);
        }
      }
    } finally {
      for (const target of targets) await target.drop?.();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('the database pool', () => {
  it('opens at most DATABASE_POOL_SIZE connections to PostgreSQL or MariaDB, however many requests wait, and answers them all', async () => {
    const kinds = inject('databases').filter((name) => name !== 'sqlite') as ('postgres' | 'mysql')[];
    for (const kind of kinds) {
      const scratch = await createScratchDatabase(kind);
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-pool-'));
      try {
        const server = await startServer({
          DATA_DIR: dataDir,
          DATABASE_URL: scratch.url,
          DATABASE_POOL_SIZE: '2',
          ADMIN_PASSWORD: 'Pool-size-password-1',
          CONSOLE_DIR: path.join(dataDir, 'none'),
        });
        try {
          const login = await fetch(`${server.url}/ui/user/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: 'admin', password: 'Pool-size-password-1' }),
          });
          expect(login.status, kind).toBe(200);
          const { sessionToken } = (await login.json()) as { sessionToken: string };
          const counts = await watchConnections(kind, new URL(scratch.url).pathname.slice(1), async (count) => {
            const seen: number[] = [];
            let loading = true;
            const watching = (async () => {
              while (loading) seen.push(await count());
            })();
            let answers: Response[];
            try {
              // forty at once: each waits for the session check's query, so a pool of ten would open ten
              answers = await Promise.all(
                Array.from({ length: 40 }, () =>
                  fetch(`${server.url}/ui/order/list`, { headers: { authorization: `Bearer ${sessionToken}` } }),
                ),
              );
            } finally {
              loading = false;
              await watching;
            }
            expect(
              answers.map((answer) => answer.status),
              kind,
            ).toEqual(Array.from({ length: 40 }, () => 200));
            // the pool keeps its idle connections a while: what it opened is still there to count
            seen.push(await count());
            return seen;
          });
          expect(Math.min(...counts), kind).toBeGreaterThan(0);
          expect(Math.max(...counts), kind).toBeLessThanOrEqual(2);
        } finally {
          expect(await server.stop()).toBe(0);
        }
      } finally {
        await scratch.drop();
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    }
  }, 120_000);
});
