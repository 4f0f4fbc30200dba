import type { Generated, Insertable, Selectable } from 'kysely';

/** `pending` (waiting for its `run_at`), `running` (leased), `done`, `failed` (out of attempts). */
export type JobState = 'pending' | 'running' | 'done' | 'failed';

/** Background jobs (migration 011, docs/background-jobs.md). */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** JSON text of the job's input. */
  payload: string;
  state: JobState;
  /** Runs started so far (a claim counts one). */
  attempts: number;
  max_attempts: number;
  /** Not claimed before this time. */
  run_at: string;
  /** The runner holding the lease while `running`. */
  lease_owner: string | null;
  /** A `running` job whose lease ended (its runner died) is claimed again. */
  lease_until: string | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}

/** One row per write that changes a paged list (migration 030, db/anchored-paging.ts); compacted by a job. */
/** A list's size and generation, one shard per writing connection (migration 033). */
export interface ListCountsTable {
  name: string;
  list_key: string;
  shard: number | string;
  total: number | string;
  weight: number | string;
}

export interface JobTables {
  jobs: JobsTable;
  list_counts: ListCountsTable;
}

export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
