import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { DatabaseKind } from '../src/config.js';
import { buildIfStale as buildServerIfStale } from '../../../scripts/server-build.mjs';
import { createTemplates, type DatabaseTemplates, preferUnixSockets, probeDatabases } from './helpers/database-servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databases: DatabaseKind[];
    /** Migrated databases the suites copy theirs from (helpers/database-servers.ts). */
    databaseTemplates: DatabaseTemplates;
  }
}

/**
 * Finds the databases to run the integration suite on: SQLite always, PostgreSQL and MariaDB
 * when they answer (on their Unix sockets when they answer there). In CI (CI=true) both must
 * answer: a missing database fails the run. Makes a migrated template of each for the suites to
 * copy, dropped after the run. Builds the server's bundle when stale, once, before the files that
 * start server processes run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildServerIfStale();
  await preferUnixSockets();
  const { available, missing } = await probeDatabases();
  if (missing.length > 0) {
    const reasons = missing.map((m) => `${m.kind} (${m.url}): ${m.reason}`).join('; ');
    if (process.env.CI === 'true') throw new Error(`CI needs every database, but these did not answer: ${reasons}`);
    console.warn(`integration tests run without: ${reasons}`);
  }
  const databases = ['sqlite' as const, ...available];
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-templates-'));
  const { templates, drop } = await createTemplates(databases, directory);
  project.provide('databases', databases);
  project.provide('databaseTemplates', templates);
  return async () => {
    await drop();
    fs.rmSync(directory, { recursive: true, force: true });
  };
}
