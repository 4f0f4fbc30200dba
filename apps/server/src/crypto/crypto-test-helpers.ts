import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Test support: run the real openssl / xmlsec1 binaries on files in a throw-away directory. */
export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function withTempFiles<T>(files: Record<string, string>, run: (paths: Record<string, string>) => T): T {
  const directory = mkdtempSync(join(tmpdir(), 'manifold-crypto-'));
  try {
    const paths: Record<string, string> = {};
    for (const [name, content] of Object.entries(files)) {
      const path = join(directory, name);
      writeFileSync(path, content);
      paths[name] = path;
    }
    return run(paths);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function runTool(command: string, args: string[]): ToolResult {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function pathOf(paths: Record<string, string>, name: string): string {
  const path = paths[name];
  if (path === undefined) throw new Error(`No temp file ${name}`);
  return path;
}
