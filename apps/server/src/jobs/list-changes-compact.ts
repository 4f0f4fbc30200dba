import type { Kysely } from 'kysely';
import { z } from 'zod';
import { compactListChanges } from '../db/anchored-paging.js';
import { type ListTable, listTables } from '../db/migrations/030-list-changes.js';
import type { DB } from '../db/schema.js';
import type { JobDefinition, JobLog } from './job-runner.js';

export const LIST_CHANGES_COMPACT = 'lists.compact';

/** Every minute: each list's change rows folded into one, so reading a list's generation stays one short sum. */
export const LIST_CHANGES_COMPACT_SECONDS = 60;

export function listChangesCompactJob(db: Kysely<DB>, log: JobLog): JobDefinition<null> {
  return {
    payload: z.null(),
    async run() {
      const folded = await compactListChanges(db, Object.keys(listTables) as ListTable[]);
      if (folded > 10_000) log.info(`list changes: folded ${folded} rows`);
    },
  };
}
