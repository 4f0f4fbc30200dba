import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Starts `scripts/demo/demo.ts` as its own process, as a newcomer runs it, for the tests that drive
 * the demo (apps/server/test/demo.int.test.ts, e2e/demo-walkthrough.e2e.test.ts): its own demo
 * folder, free ports, a small fleet with short jobs. Resolves once the demo prints that it is ready,
 * with the three server pids and `demo.json`; the caller stops it (SIGTERM to `child`, and SIGKILL
 * of `serverPids` left alive after a failure).
 */

const repoRoot = path.resolve(import.meta.dirname, '../..');

export type DemoKey = 'upstream' | 'downstream' | 'trace';

/** What the demo keeps in `demo.json` and the tests read. */
export interface DemoFile {
  hosts: Record<DemoKey, string>;
  ports: Record<DemoKey, number>;
  adminPasswords: Record<DemoKey, string>;
  orderIds: string[];
  dsiIds: string[];
  manageId: string;
  downstreamOrderId: string;
}

export interface SpawnedDemo {
  child: ChildProcess;
  /** Everything the demo printed so far (stdout and stderr). */
  output: () => string;
  exited: Promise<number | null>;
  serverPids: number[];
  state: DemoFile;
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Spawns the demo in `dir` (`--port 0 --machines 2 --downstream-machines 1 --job-ms 300-800` and
 * `extraArgs`). `onChild` receives the process at once, so the caller can stop it even when the demo
 * never gets ready.
 */
export async function spawnDemo(dir: string, extraArgs: string[], onChild: (child: ChildProcess) => void): Promise<SpawnedDemo> {
  const args = ['--dir', dir, '--port', '0', '--machines', '2', '--downstream-machines', '1', '--job-ms', '300-800'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo/demo.ts', ...args, ...extraArgs], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onChild(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    new Promise<RegExpMatchArray>((resolve) => {
      const check = () => {
        const match = /ready \(server pids upstream=(\d+) downstream=(\d+) trace=(\d+)/.exec(output);
        if (match) resolve(match);
        else setTimeout(check, 200);
      };
      check();
    }),
    exited.then((code) => {
      throw new Error(`the demo exited (${code}) before it was ready:\n${output}`);
    }),
  ]);
  const serverPids = ready.slice(1, 4).map(Number);
  const state = JSON.parse(await fs.readFile(path.join(dir, 'demo.json'), 'utf8')) as DemoFile;
  return { child, output: () => output, exited, serverPids, state };
}
