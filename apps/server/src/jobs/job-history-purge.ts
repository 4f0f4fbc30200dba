import { z } from 'zod';
import type { JobDefinition } from './job-runner.js';
import type { JobsRepository } from './jobs.repository.js';

export const JOB_HISTORY_PURGE = 'jobs.purge';

/** Done jobs are kept a day, failed ones 30 days (for `GET admin/jobs?state=failed`). */
export const DONE_JOBS_KEPT_SECONDS = 24 * 3600;
export const FAILED_JOBS_KEPT_SECONDS = 30 * 24 * 3600;

/** Deletes finished jobs past their keeping time (their dedupe keys with them). */
export function jobHistoryPurgeJob(jobs: JobsRepository, now: () => Date = () => new Date()): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const at = now().getTime();
      await jobs.purgeFinished(
        new Date(at - DONE_JOBS_KEPT_SECONDS * 1000).toISOString(),
        new Date(at - FAILED_JOBS_KEPT_SECONDS * 1000).toISOString(),
      );
    },
  };
}
