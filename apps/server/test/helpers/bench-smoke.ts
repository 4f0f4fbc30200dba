import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, inject, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');

/** A benchmark script run with its smallest options, and the table heading its output must show. */
export interface BenchSmoke {
  /** The npm script (`bench:request`), for the test's name. */
  script: string;
  /** The script's file and arguments, as `package.json` runs it, plus the small options. */
  args: string[];
  /** Words of the figures table's heading row. */
  heading: readonly string[];
  /** A database the benchmark runs on only (it is run when that database answers, as in CI). */
  needs?: 'postgres';
}

/** Ends a benchmark and everything it started: its process group (what is left of it). */
function stop(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

async function run(
  args: string[],
  timeoutMs: number,
  started: Set<ChildProcess>,
): Promise<{ code: number | null; output: string }> {
  // a process group of its own: the servers, emulators and load generators it starts end with it
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: repoRoot,
    detached: true,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const timer = setTimeout(() => stop(child), timeoutMs);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exitCode) => resolve(exitCode));
    });
    return { code, output };
  } finally {
    clearTimeout(timer);
    // a server or emulator it left running (a benchmark stops its own; this one failed to)
    stop(child);
    started.delete(child);
  }
}

/**
 * One test per benchmark: it runs to the end (exit 0) and prints its figures' table. Nothing is
 * timed and no figure is judged (they are the scripts' own, docs/performance.md); a benchmark the
 * code has left behind (a changed route, schema or set-up) fails here instead of on the day it is
 * run. A benchmark still running at `timeoutMs` is stopped with everything it started.
 */
export function benchSmokes(smokes: readonly BenchSmoke[], timeoutMs = 150_000): void {
  const databases = inject('databases');
  const started = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of started) stop(child);
  });
  for (const smoke of smokes.filter(({ needs }) => needs === undefined || databases.includes(needs))) {
    it(
      `npm run ${smoke.script} runs to its figures`,
      async () => {
        const { code, output } = await run(smoke.args, timeoutMs, started);
        const heading = output.split('\n').find((line) => line.includes('(index)'));
        expect({ code, heading: heading !== undefined, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({
          code: 0,
          heading: true,
          tail: '',
        });
        const columns = heading!.split('│').map((cell) => cell.trim());
        expect(columns).toEqual(expect.arrayContaining([...smoke.heading]));
      },
      timeoutMs + 10_000,
    );
  }
}
