import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildIfStale as buildServerIfStale } from '../scripts/server-build.mjs';
import { buildConsoleIfStale, type RunningServer, startServer } from './support/server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One server per e2e worker; a test file claims one for as long as it runs (support/own-server.ts). */
    servers: { baseUrl: string; adminUsername: string; adminPassword: string }[];
    /** Where the claims' lock files are. */
    serverLocks: string;
  }
}

/**
 * Builds the console and the server's bundle when stale, then starts one real server per e2e worker, each on a fresh
 * database, so that test files running side by side never share one. Stops them all after.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildConsoleIfStale();
  buildServerIfStale();
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  const serverLocks = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-locks-'));
  const started = await Promise.allSettled(Array.from({ length: workers }, () => startServer()));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stopAll = async () => {
    await Promise.all(servers.map((server: RunningServer) => server.stop()));
    fs.rmSync(serverLocks, { recursive: true, force: true });
  };
  const failure = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) {
    await stopAll();
    throw failure.reason;
  }
  project.provide(
    'servers',
    servers.map(({ baseUrl, adminUsername, adminPassword }) => ({ baseUrl, adminUsername, adminPassword })),
  );
  project.provide('serverLocks', serverLocks);
  return stopAll;
}
