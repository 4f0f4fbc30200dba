import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * Spent STP nonces are deleted by the background job `stp.nonces.purge` (all machines at once,
 * by age) instead of on each machine request: this index serves its range delete.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('stp_nonces_expiry_idx').on('stp_nonces').column('created_at').execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'stp_nonces_expiry_idx', 'stp_nonces');
}
