import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * The home dashboard's figures (docs/dashboard.md): each is one aggregate over an index, so the
 * dashboard stays cheap however many orders, builds and messages there are.
 */
const indexes: [string, string, string[]][] = [
  // live orders and the quantity they can still authorize: counted from the index alone
  ['orders_live_idx', 'orders', ['archived', 'revoked', 'expires_at', 'quantity', 'allocated', 'expired_quantity']],
  // authorizations waiting to be sent
  ['authorizations_waiting_idx', 'authorizations', ['state', 'archived']],
  // jobs in progress and the machines printing them
  ['builds_state_idx', 'builds', ['state', 'device_id']],
  // each peer's outbox: pending, failed, delivered and the last delivery
  ['outbox_target_idx', 'outbox', ['target_id', 'state', 'delivered_at']],
];

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  for (const [name, table, columns] of indexes) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const [name, table] of indexes) await dropIndexIfExists(db, kind, name, table);
}
