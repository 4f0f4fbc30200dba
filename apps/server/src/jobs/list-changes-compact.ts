import type { Kysely } from 'kysely';
import { z } from 'zod';
import { compactListChanges } from '../db/anchored-paging.js';
import type { DB } from '../db/schema.js';
import type { JobDefinition, JobLog } from './job-runner.js';

export const LIST_CHANGES_COMPACT = 'lists.compact';

/** Every minute: the lists' change rows folded into their totals, so reading a list's generation or size stays a short sum (a read that finds many folds them sooner). */
export const LIST_CHANGES_COMPACT_SECONDS = 60;

export function listChangesCompactJob(db: Kysely<DB>, log: JobLog): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const folded = await compactListChanges(db);
      if (folded > 10_000) log.info(`list changes: folded ${folded} rows`);
    },
  };
}
