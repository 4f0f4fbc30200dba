import type { Kysely } from 'kysely';

/**
 * Peer registrations (docs/peer-network.md). Manage registrations live in `manage_instances`
 * (licensing sends authorizations to its rows); they gain the registration nonce both sides
 * share and the fingerprint of the peer's signing certificate, each unique (one registration of
 * a kind per peer key).
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
}
