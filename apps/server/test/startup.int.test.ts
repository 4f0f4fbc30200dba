import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, spawnServer, startServer } from './helpers/server-process.js';

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

  it('refuses an unreachable database with a one-line reason', async () => {
    const server = await spawnServer({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      DATA_DIR: os.tmpdir(),
      LOG_LEVEL: 'silent',
    });
    expect(await server.exited).toBe(1);
    expect(server.output().stderr.trim().split('\n')).toHaveLength(1);
    expect(server.output().stderr).toMatch(/^manifold: cannot start: /);
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
});
