import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { DB } from '../db/schema.js';
import { SessionsRepository } from '../modules/session/sessions.repository.js';
import type { JobDefinition, JobLog } from './job-runner.js';

export const SESSION_PURGE = 'sessions.purge';

/** Ended sessions are kept this long (for a look at recent logins), then deleted. */
export const ENDED_SESSIONS_KEPT_SECONDS = 24 * 3600;

/** Deletes session rows that ended (expired or revoked) more than a day ago. */
export function sessionPurgeJob(db: Kysely<DB>, log: JobLog, now: () => Date = () => new Date()): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const cutoff = new Date(now().getTime() - ENDED_SESSIONS_KEPT_SECONDS * 1000).toISOString();
      const purged = await new SessionsRepository(db).purgeEndedBefore(cutoff);
      if (purged > 0) log.info(`session purge: deleted ${purged} sessions that ended before ${cutoff}`);
    },
  };
}
