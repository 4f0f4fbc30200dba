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
/** A write's change to a table's lists (migration 033): its generation (`weight`, key '') and a key's size (`delta`). */
export interface ListChangesTable {
  id: Generated<number>;
  name: string;
  list_key: string;
  delta: number | string;
  weight: number | string;
}

/** The folded sums of `list_changes` per table and key. */
export interface ListTotalsTable {
  name: string;
  list_key: string;
  total: number | string;
  weight: number | string;
}

export interface JobTables {
  jobs: JobsTable;
  list_changes: ListChangesTable;
  list_totals: ListTotalsTable;
}

export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
