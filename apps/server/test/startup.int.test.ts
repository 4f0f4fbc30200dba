import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const mainFile = path.resolve(import.meta.dirname, '../src/main.ts');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', mainFile], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe('starting and stopping the server', () => {
  it('refuses a database type it cannot serve with a one-line reason', async () => {
    for (const url of ['sqlserver://db/manifold', 'oracle://db/x', 'h2:mem:x', 'bogus://x']) {
      const server = startServer({ DATABASE_URL: url, DATA_DIR: os.tmpdir() });
      expect(await server.exited).toBe(2);
      const lines = server.output().stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^manifold: DATABASE_URL: /);
    }
  });

  it('refuses an unreachable database with a one-line reason', async () => {
    const server = startServer({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: os.tmpdir(), LOG_LEVEL: 'silent' });
    expect(await server.exited).toBe(1);
    expect(server.output().stderr.trim().split('\n')).toHaveLength(1);
    expect(server.output().stderr).toMatch(/^manifold: cannot start: /);
  });

  it('creates the first ADMIN with a generated password kept in a 0600 file, and stops on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-start-'));
    const port = await freePort();
    const server = startServer({ DATA_DIR: dataDir, PORT: String(port), CONSOLE_DIR: path.join(dataDir, 'none') });
    try {
      expect((await waitFor(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
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
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);

    // a second start on the same database creates nobody and logs no password
    const again = startServer({ DATA_DIR: dataDir, PORT: String(port), CONSOLE_DIR: path.join(dataDir, 'none') });
    await waitFor(`http://127.0.0.1:${port}/healthz`);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(again.output().stdout).not.toContain('Created the first administrator');
    await fs.rm(dataDir, { recursive: true, force: true });
  });
});
