import type { Kysely } from 'kysely';
import { z } from 'zod';
import { STP_WINDOW_MS } from '@manifold/contract';
import type { DB } from '../db/schema.js';
import { StpRepository } from '../modules/licensing/stp.repository.js';
import type { JobDefinition, JobLog } from './job-runner.js';

export const STP_NONCE_PURGE = 'stp.nonces.purge';

/** How often spent nonces are purged: they only take room, a late purge lets nothing through. */
export const STP_NONCE_PURGE_SECONDS = 300;

/**
 * Deletes the STP nonces spent more than twice the timestamp window ago: a request carrying one
 * again is refused by the timestamp check (±{@link STP_WINDOW_MS}) before its nonce is looked at.
 */
export function stpNoncePurgeJob(db: Kysely<DB>, log: JobLog, now: () => Date = () => new Date()): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const cutoff = new Date(now().getTime() - 2 * STP_WINDOW_MS).toISOString();
      const purged = await new StpRepository(db).purgeNonces(cutoff);
      if (purged > 10_000) log.info(`stp nonce purge: deleted ${purged} nonces spent before ${cutoff}`);
    },
  };
}
