import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * Peer registrations (docs/peer-network.md). Manage registrations live in `manage_instances`
 * (licensing sends authorizations to its rows); they gain the registration nonce both sides
 * share and the fingerprint of the peer's signing certificate, each unique (one registration of
 * a kind per peer key). `peer_nonces` holds the nonces of signed messages received from
 * registered peers for as long as their timestamps are acceptable, so a replay is refused. `protect_registrations` holds the token pairs
 * admins hand to design owners' Protect instances and the registrations made with them.
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
  await db.schema
    .createTable('protect_registrations')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('token1', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('token2_sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(160)', (c) => c.notNull())
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    .addColumn('registration_state', 'varchar(16)', (c) => c.notNull())
    .addColumn('signing_certificate', 'text')
    .addColumn('encryption_certificate', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('protect_registrations_created_idx')
    .on('protect_registrations')
    .columns(['created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema.dropTable('protect_registrations').ifExists().execute();
  await db.schema.dropTable('peer_nonces').ifExists().execute();
  await dropIndexIfExists(db, kind, 'manage_instances_peer_idx', 'manage_instances');
  await dropIndexIfExists(db, kind, 'manage_instances_nonce_idx', 'manage_instances');
  await db.schema.alterTable('manage_instances').dropColumn('signing_fingerprint').execute();
  await db.schema.alterTable('manage_instances').dropColumn('registration_nonce').execute();
}
