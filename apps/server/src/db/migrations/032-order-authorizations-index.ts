import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * An order's authorizations in the order its detail pages them (`order/fetch`: oldest first):
 * without this index a page sorted all of the order's authorizations, and a deep page skipped
 * through them (docs/performance.md, "Lists at scale").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('authorizations_order_created_idx')
    .on('authorizations')
    .columns(['order_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'authorizations_order_created_idx', 'authorizations');
}
