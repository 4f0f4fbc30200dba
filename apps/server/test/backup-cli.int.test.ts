import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TSecureRepoNode } from '@manifold/contract';
import { runCli } from './helpers/cli.js';
import { multipartForm } from './helpers/multipart.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';
import { adminPassword, describeEachDatabase, serverProcessEnv } from './helpers/test-app.js';

// `npm run backup` (apps/server/src/cli/backup.ts, docs/operations.md): an online backup of an
// instance on SQLite that is a DATA_DIR of its own, restored by starting a server on it.

const cli = path.resolve(import.meta.dirname, '../src/cli/backup.ts');

describeEachDatabase('npm run backup', (ctx) => {
  let dir: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-backup-'));
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const backup = (out: string) => runCli(cli, ['--out', out], { env: serverProcessEnv(ctx().config) });

  it('answers usage errors with exit code 2', async () => {
    expect(await runCli(cli, [], { env: serverProcessEnv(ctx().config) })).toMatchObject({
      code: 2,
      stderr: 'usage: npm run backup -- --out <new directory>\n',
    });
  });

  it('backs up SQLite (exit 0); refuses PostgreSQL and MariaDB, naming their own dump tool', async () => {
    const taken = await backup(path.join(dir, 'refused'));
    if (ctx().kind === 'sqlite') {
      // what the SQLite tests below check in detail
      expect(taken.code, taken.stderr).toBe(0);
      return;
    }
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(ctx().kind === 'postgres' ? 'back it up with pg_dump' : 'back it up with mariadb-dump');
    await expect(fs.readdir(path.join(dir, 'refused'))).rejects.toThrow();
  });

  it('SQLite: a backup taken while the server runs is served, files included, by a server started on it', async () => {
    if (ctx().kind !== 'sqlite') return; // refused above
    const token = await ctx().adminToken();
    const folder = await ctx().call('POST', '/ui/secure-repo/create-folder', {
      token,
      body: { folderName: 'Backed up', groups: [] },
    });
    expect(folder.statusCode, folder.body).toBe(200);
    const content = randomBytes(200_000);
    const form = multipartForm({
      nodeId: folder.json<TSecureRepoNode>().nodeId,
      file: { filename: 'drawing.pdf', content, contentType: 'application/pdf' },
    });
    const uploaded = await ctx().call('POST', '/ui/secure-repo/upload', { token, body: form.body, headers: form.headers });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const nodeId = uploaded.json<TSecureRepoNode>().nodeId;

    const out = path.join(dir, 'first');
    const taken = await backup(out);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain('backup complete: every object the database refers to is in it');
    expect((await fs.readdir(out)).sort()).toEqual(['key-encryption.key', 'manifold.db', 'storage']);
    expect((await fs.stat(path.join(out, 'manifold.db'))).mode & 0o777).toBe(0o600);

    // a server of its own on the copy: the same accounts, the same file (opened with the copied key)
    const restored = await startServer({
      DATA_DIR: out,
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'silent',
      CONSOLE_DIR: path.join(out, 'no-console'),
    });
    servers.push(restored);
    const login = await fetch(`${restored.url}/ui/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: adminPassword }),
    });
    expect(login.status).toBe(200);
    const { sessionToken } = (await login.json()) as { sessionToken: string };
    const download = await fetch(`${restored.url}/ui/secure-repo/download?nodeId=${nodeId}`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
  });

  it('SQLite: names an object the database refers to that went before it was copied, and exits 1', async () => {
    if (ctx().kind !== 'sqlite') return; // refused above
    const root = path.join(ctx().config.dataDir, 'storage');
    const [prefix] = (await fs.readdir(root)).filter((name) => /^[a-f0-9]{2}$/.test(name));
    const [key] = await fs.readdir(path.join(root, prefix!));
    const moved = path.join(dir, 'moved-object');
    await fs.rename(path.join(root, prefix!, key!), moved);
    try {
      const taken = await backup(path.join(dir, 'second'));
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain(`1 objects the database refers to were deleted before they were copied (${key})`);
    } finally {
      await fs.rename(moved, path.join(root, prefix!, key!));
    }
  });

  it('SQLite: refuses a directory that is not empty', async () => {
    if (ctx().kind !== 'sqlite') return; // refused above
    const full = path.join(dir, 'full');
    await fs.mkdir(full, { recursive: true });
    await fs.writeFile(path.join(full, 'something'), 'x');
    expect(await backup(full)).toMatchObject({ code: 2, stderr: `${full} is not empty: name a new directory\n` });
  });
});
