import type { Kysely } from 'kysely';

/**
 * Peer registrations (docs/peer-network.md). Manage registrations live in `manage_instances`
 * (licensing sends authorizations to its rows); they gain the registration nonce both sides
 * share and the fingerprint of the peer's signing certificate, each unique (one registration of
 * a kind per peer key). `peer_nonces` holds the nonces of signed messages received from
 * registered peers for as long as their timestamps are acceptable, so a replay is refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('manage_instances').addColumn('registration_nonce', 'varchar(64)').execute();
  await db.schema.alterTable('manage_instances').addColumn('signing_fingerprint', 'varchar(128)').execute();
  await db.schema
    .createIndex('manage_instances_nonce_idx')
    .on('manage_instances')
    .column('registration_nonce')
    .unique()
    .execute();
  await db.schema
    .createIndex('manage_instances_peer_idx')
    .on('manage_instances')
    .columns(['signing_fingerprint', 'manage_type'])
    .unique()
    .execute();
  await db.schema
    .createTable('peer_nonces')
    .addColumn('registration_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('peer_nonces_pk', ['registration_id', 'nonce'])
    .execute();
  await db.schema.createIndex('peer_nonces_created_idx').on('peer_nonces').column('created_at').execute();
}
