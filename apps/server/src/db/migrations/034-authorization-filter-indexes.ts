import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * The authorization list as the console first shows it, newest first (sortBy dateCreated), with
 * one of its filters: a design, a company or a user. Without these indexes a page read every
 * authorization of the filter's value and sorted them (an order's have
 * authorizations_order_created_idx, migration 032).
 */
const indexes: [name: string, column: string][] = [
  ['authorizations_archived_dsi_created_idx', 'dsi_id'],
  ['authorizations_archived_company_created_idx', 'company_name'],
  ['authorizations_archived_user_created_idx', 'user_id'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of indexes)
    await db.schema.createIndex(name).on('authorizations').columns(['archived', column, 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const [name] of indexes) {
    await dropIndexIfExists(db, kind, name, 'authorizations');
  }
}
