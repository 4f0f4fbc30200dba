import type { TestProject } from 'vitest/node';
import { buildConsoleIfStale, startServer } from './support/server';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    adminUsername: string;
    adminPassword: string;
  }
}

/** Builds the console when stale, starts the real server on a fresh database, stops it after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildConsoleIfStale();
  const server = await startServer();
  project.provide('baseUrl', server.baseUrl);
  project.provide('adminUsername', server.adminUsername);
  project.provide('adminPassword', server.adminPassword);
  return server.stop;
}
