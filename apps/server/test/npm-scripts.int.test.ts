import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '@manifold/machine-simulator';
import { freePort, waitForHttp } from './helpers/server-process.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Every process below `pid` (children, their children …), from `ps`. */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    frontier = table.filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The long-running npm scripts, stopped as a service manager or a terminal's `kill` stops them: a
 * SIGTERM to the `npm` process alone. npm passes it to the script's shell only, so a script that
 * does not `exec` its program leaves that program running, orphaned.
 */
describe('npm scripts stop with npm', () => {
  const started: number[] = [];
  let dataDir = '';

  afterAll(async () => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('npm start: a SIGTERM to npm stops the server (exit 0, its port closed, no process left)', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-npm-start-'));
    const port = await freePort();
    const npm: ChildProcess = spawn('npm', ['start'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(npm.pid!);
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    let output = '';
    npm.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
    npm.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
    // run alone after console changes, npm start builds the console first
    const state = await waitForHttp(`http://127.0.0.1:${port}/ui/admin/state`, 300_000).catch((error: unknown) => {
      throw new Error(`npm start did not serve: ${String(error)}\n${output}`);
    });
    expect(state.status).toBe(200);
    const below = descendants(npm.pid!);
    started.push(...below);
    expect(below.length).toBeGreaterThan(0);

    process.kill(npm.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    await until('every process npm started to end', () => (below.some(alive) ? undefined : true), 40_000);
    await expect(fetch(`http://127.0.0.1:${port}/ui/admin/state`)).rejects.toThrow();
  }, 420_000);

  it('every long-running script execs its program, so that npm signals it and not a shell', async () => {
    const { scripts } = JSON.parse(await fs.readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of ['start', 'dev', 'test', 'test:e2e', 'machine', 'demo']) {
      expect(scripts[name], name).toMatch(/^exec node /);
    }
  });
});
