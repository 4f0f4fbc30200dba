import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobsConfig } from '../config.js';
import type { Database } from '../db/database.js';
import type { Storage } from '../storage/storage.js';
import { JOB_HISTORY_PURGE, jobHistoryPurgeJob } from './job-history-purge.js';
import { type JobLog, JobRunner } from './job-runner.js';
import { JobsRepository } from './jobs.repository.js';
import { jobsRoutes } from './jobs.routes.js';
import { JobsService } from './jobs.service.js';
import { SESSION_PURGE, sessionPurgeJob } from './session-purge.js';
import { STORAGE_SWEEP, storageSweepJob } from './storage-sweep.js';

export interface JobsModule {
  /** `enqueue` for other modules; the admin list. */
  service: JobsService;
  /** Started by `buildApp` only when asked (`startJobs`); stopped when the app closes. */
  runner: JobRunner;
  routes: FastifyPluginAsyncZod;
}

const HOUR = 3600;

/** The background jobs: the runner with every job kind and schedule, and `GET admin/jobs`. */
export function createJobsModule(deps: { database: Database; storage: Storage; config: JobsConfig; log: JobLog }): JobsModule {
  const { database, storage, config, log } = deps;
  const service = new JobsService(database);
  const runner = new JobRunner(database, service, { ...config, log });

  runner.register(SESSION_PURGE, sessionPurgeJob(database.db, log));
  runner.schedule({ kind: SESSION_PURGE, everySeconds: HOUR });
  runner.register(STORAGE_SWEEP, storageSweepJob(database.db, storage, { graceSeconds: config.storageGraceSeconds, log }));
  runner.schedule({ kind: STORAGE_SWEEP, everySeconds: 6 * HOUR, atStart: true });
  runner.register(JOB_HISTORY_PURGE, jobHistoryPurgeJob(new JobsRepository(database.db, database.dialect)));
  runner.schedule({ kind: JOB_HISTORY_PURGE, everySeconds: HOUR });

  return { service, runner, routes: jobsRoutes(service) };
}
