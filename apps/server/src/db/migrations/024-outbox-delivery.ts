import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * The outbox delivered without a job per attempt (docs/peer-network.md#the-outbox): a delivery
 * worker leases due messages itself (`lease_owner`, `lease_until`: a worker that dies mid-attempt
 * leaves them to another once the lease ran out). Indexes for the retention purge of delivered
 * messages and of the receiver's applied message ids.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('lease_owner', 'varchar(200)').execute();
  await db.schema.alterTable('outbox').addColumn('lease_until', 'varchar(32)').execute();
  await db.schema.createIndex('outbox_delivered_idx').on('outbox').columns(['state', 'delivered_at']).execute();
  await db.schema.createIndex('peer_messages_received_idx').on('peer_messages').column('received_at').execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'peer_messages_received_idx', 'peer_messages');
  await dropIndexIfExists(db, kind, 'outbox_delivered_idx', 'outbox');
  await db.schema.alterTable('outbox').dropColumn('lease_until').execute();
  await db.schema.alterTable('outbox').dropColumn('lease_owner').execute();
}
