import { z } from 'zod';
import { ZPageQuery } from './common.js';

/** `pending` (waiting to run), `running` (a runner holds its lease), `done`, `failed` (out of attempts). */
export const ZJobState = z.enum(['pending', 'running', 'done', 'failed']).meta({ id: 'JobState' });
export type TJobState = z.infer<typeof ZJobState>;

/** One background job as `GET admin/jobs` shows it (docs/background-jobs.md). */
export const ZJob = z
  .object({
    id: z.number().int(),
    kind: z.string(),
    state: ZJobState,
    payload: z.unknown(),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    /** Not run before this time (the next retry of a job that failed and has attempts left). */
    runAt: z.string(),
    leaseOwner: z.string().nullable(),
    leaseUntil: z.string().nullable(),
    /** The error of the last failed attempt. */
    lastError: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Job' });
export type TJob = z.infer<typeof ZJob>;

export const ZJobListQuery = ZPageQuery.extend({ state: ZJobState.optional() });
export type TJobListQuery = z.infer<typeof ZJobListQuery>;
