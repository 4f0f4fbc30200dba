import type { Kysely } from 'kysely';
import type { TJob, TJobListQuery, TPage } from '@manifold/contract';
import type { Database } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import { isoNow } from '../lib/time.js';
import { JobsRepository } from './jobs.repository.js';

export const DEFAULT_MAX_ATTEMPTS = 5;

export interface EnqueueOptions {
  /** Not run before this time; default now. */
  runAt?: Date;
  /** Attempts before the job is given up as `failed`; default {@link DEFAULT_MAX_ATTEMPTS}. */
  maxAttempts?: number;
  /** At most one job with this key (until the finished job is purged): a second enqueue does nothing. */
  dedupeKey?: string;
}

/** `JobsService.enqueue` for code that holds an executor and the dialect but not the service. */
export function enqueueJob(
  db: Kysely<DB>,
  dialect: Dialect,
  kind: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<number | undefined> {
  const now = isoNow();
  return new JobsRepository(db, dialect).insert({
    kind,
    payload: JSON.stringify(payload ?? null),
    state: 'pending',
    attempts: 0,
    max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    run_at: options.runAt ? isoNow(options.runAt) : now,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    dedupe_key: options.dedupeKey ?? null,
    created_at: now,
    updated_at: now,
  });
}

/** Adding jobs and looking at them; the runner (`job-runner.ts`) runs them. */
export class JobsService {
  constructor(private readonly database: Database) {}

  /**
   * Adds a job. Pass the transaction that makes the change the job belongs to, so the job exists
   * exactly when the change is committed (or `database.db` for a job on its own). Answers the
   * job's id, or undefined when a job with the same dedupe key exists.
   */
  enqueue(db: Kysely<DB>, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | undefined> {
    return enqueueJob(db, this.database.dialect, kind, payload, options);
  }

  list(query: TJobListQuery): Promise<TPage<TJob>> {
    return new JobsRepository(this.database.db, this.database.dialect).list(query);
  }
}
