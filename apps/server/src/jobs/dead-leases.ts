import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';
import type { JobLog } from './job-runner.js';
import { errorText } from './job-timing.js';
import { deadLeaseOwners } from './lease-owner.js';

/** The tables whose rows runners lease, and the state a leased row is in. */
const LEASED = { jobs: 'running', outbox: 'pending' } as const;

/**
 * Lets the leases in `table` that dead runners of this process space still hold (lease-owner.ts)
 * run out now: their rows are claimed again as any whose lease ran out, attempts counted as
 * usual. Answers the owners found dead.
 */
export async function expireDeadLeases(db: Kysely<DB>, table: keyof typeof LEASED, now: Date): Promise<string[]> {
  const at = now.toISOString();
  const holders = await db
    .selectFrom(table)
    .select('lease_owner')
    .distinct()
    .where('state', '=', LEASED[table])
    .where('lease_until', '>', at)
    // an outbox message is leased only once due, and keeps its due time while leased: the due
    // index's range (which every claim reads), not the whole backlog retrying later
    .$if(table === 'outbox', (query) => query.where(sql.ref('next_attempt_at'), '<=', at))
    .execute();
  const dead = deadLeaseOwners(holders.flatMap((row) => (row.lease_owner ? [row.lease_owner] : [])));
  if (dead.length === 0) return [];
  await db
    .updateTable(table)
    .set({ lease_until: new Date(now.getTime() - 1).toISOString() })
    .where('state', '=', LEASED[table])
    .where('lease_owner', 'in', dead)
    .where('lease_until', '>', at)
    .execute();
  return dead;
}

/**
 * `expireDeadLeases` for a runner or worker named `owner`: the owners taken over are logged as a
 * warning, a failure as an error (the leases then run out as before).
 */
export async function takeOverDeadLeases(
  db: Kysely<DB>,
  table: keyof typeof LEASED,
  now: Date,
  { owner, log }: { owner: string; log: JobLog },
): Promise<void> {
  const who = table === 'jobs' ? `job runner ${owner}` : `outbox delivery ${owner}`;
  try {
    const dead = await expireDeadLeases(db, table, now);
    if (dead.length > 0)
      log.warn(`${who}: took over the ${table === 'jobs' ? 'jobs' : 'messages'} of stopped runners ${dead.join(', ')}`);
  } catch (error) {
    log.error(`${who}: looking for stopped runners' leases failed: ${errorText(error)}`);
  }
}
