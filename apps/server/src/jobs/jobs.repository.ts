import type { Kysely } from 'kysely';
import type { TJob, TJobState, TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../db/dialect.js';
import { pageOffset, toPage } from '../db/paging.js';
import type { DB } from '../db/schema.js';
import type { JobRow, NewJobRow } from '../db/schema-jobs.js';

/**
 * The `jobs` table. Every change to a claimed job names its lease owner: a runner whose lease
 * ran out (and whose job another runner took) changes nothing.
 */
export class JobsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  /** The new job's id, or undefined when a job with its dedupe key exists. */
  insert(row: NewJobRow): Promise<number | undefined> {
    return this.dialect.insertIdUnlessDuplicate(this.db, 'jobs', row);
  }

  findById(id: number): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Leases up to `limit` due jobs of the given kinds to `owner`: pending ones whose time has come
   * and running ones whose lease ran out (their runner died), oldest first. Counts an attempt.
   */
  async claim(claim: { owner: string; kinds: string[]; now: string; leaseUntil: string; limit: number }): Promise<JobRow[]> {
    if (claim.kinds.length === 0 || claim.limit < 1) return [];
    const ids = await this.dialect.claimJobs(
      this.db,
      (db) =>
        db
          .selectFrom('jobs')
          .select('id')
          .where('kind', 'in', claim.kinds)
          .where((eb) =>
            eb.or([
              eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', claim.now)]),
              eb.and([eb('state', '=', 'running'), eb('lease_until', '<', claim.now)]),
            ]),
          )
          .orderBy('run_at')
          .orderBy('id')
          .limit(claim.limit),
      {
        state: 'running',
        lease_owner: claim.owner,
        lease_until: claim.leaseUntil,
        attempts: (eb) => eb('attempts', '+', 1),
        updated_at: claim.now,
      },
    );
    if (ids.length === 0) return [];
    return this.db.selectFrom('jobs').selectAll().where('id', 'in', ids).orderBy('run_at').orderBy('id').execute();
  }

  /** Marks a leased job done; false when the lease is no longer the owner's. */
  async complete(id: number, owner: string, now: string): Promise<boolean> {
    return this.finishLeased(id, owner, { state: 'done', lease_owner: null, lease_until: null, updated_at: now });
  }

  /** Puts a leased job back to wait for another attempt at `runAt`, keeping the error. */
  async retryLater(id: number, owner: string, error: string, runAt: string, now: string): Promise<boolean> {
    return this.finishLeased(id, owner, {
      state: 'pending',
      run_at: runAt,
      last_error: error,
      lease_owner: null,
      lease_until: null,
      updated_at: now,
    });
  }

  /** Gives a leased job up for good, keeping the error. */
  async fail(id: number, owner: string, error: string, now: string): Promise<boolean> {
    return this.finishLeased(id, owner, {
      state: 'failed',
      last_error: error,
      lease_owner: null,
      lease_until: null,
      updated_at: now,
    });
  }

  /** Extends the leases of the owner's running jobs. */
  async renewLeases(ids: number[], owner: string, leaseUntil: string, now: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set({ lease_until: leaseUntil, updated_at: now })
      .where('id', 'in', ids)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Hands the owner's running jobs back, due now, without counting the interrupted attempt
   * (the runner stopped; the job did not fail).
   */
  async release(ids: number[], owner: string, now: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'pending',
        run_at: now,
        attempts: eb('attempts', '-', 1),
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      }))
      .where('id', 'in', ids)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Jobs newest first, optionally of one state. */
  async list(query: TPageQuery & { state?: TJobState }): Promise<TPage<TJob>> {
    let base = this.db.selectFrom('jobs');
    if (query.state) base = base.where('state', '=', query.state);
    const [total, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base.selectAll().orderBy('id', 'desc').limit(query.numberOfItems).offset(pageOffset(query)).execute(),
    ]);
    return toPage(query, total.n, rows.map(toJob));
  }

  /** Forgets finished jobs: done ones updated before `doneBefore`, failed ones before `failedBefore`. */
  async purgeFinished(doneBefore: string, failedBefore: string): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'done'), eb('updated_at', '<', doneBefore)]),
          eb.and([eb('state', '=', 'failed'), eb('updated_at', '<', failedBefore)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  private async finishLeased(
    id: number,
    owner: string,
    changes: Partial<Pick<JobRow, 'state' | 'run_at' | 'last_error' | 'lease_owner' | 'lease_until' | 'updated_at'>>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set(changes)
      .where('id', '=', id)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toJob(row: JobRow): TJob {
  return {
    id: Number(row.id),
    kind: row.kind,
    state: row.state,
    payload: parsePayload(row.payload),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
