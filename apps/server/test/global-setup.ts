import type { TestProject } from 'vitest/node';
import { buildIfStale as buildServerIfStale } from '../../../scripts/server-build.mjs';
import { probeDatabases } from './helpers/database-servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databases: string[];
  }
}

/**
 * Finds the databases to run the integration suite on: SQLite always, PostgreSQL and MariaDB
 * when they answer. In CI (CI=true) both must answer: a missing database fails the run. Builds
 * the server's bundle when stale, once, before the files that start server processes run.
 */
export default async function setup(project: TestProject): Promise<void> {
  buildServerIfStale();
  const { available, missing } = await probeDatabases();
  if (missing.length > 0) {
    const reasons = missing.map((m) => `${m.kind} (${m.url}): ${m.reason}`).join('; ');
    if (process.env.CI === 'true') throw new Error(`CI needs every database, but these did not answer: ${reasons}`);
    console.warn(`integration tests run without: ${reasons}`);
  }
  project.provide('databases', ['sqlite', ...available]);
}
