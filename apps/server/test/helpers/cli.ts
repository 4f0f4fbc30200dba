import { execFile } from 'node:child_process';
import path from 'node:path';
import { bundledNodeArgs } from '../../../../scripts/server-build.mjs';

/**
 * Runs one of the server's command-line tools (`apps/server/src/cli/*.ts`) as its documented npm
 * script does (scripts/server-cli.mjs), from its bundle built first when stale, off the caller's event loop: its exit code (null when a signal ended it)
 * and output. With `env`, the tool sees exactly that environment (plus PATH); without, the test's.
 */
export function runCli(
  file: string,
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...bundledNodeArgs(path.resolve(file)), ...args],
      { encoding: 'utf8', ...(options.env ? { env: { PATH: process.env.PATH ?? '', ...options.env } } : {}) },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}
