import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';

/**
 * Security keys (WebAuthn credentials) and their single-use challenges; how long a session stays
 * escalated; access policies and access roles; the classification label (CUI, FCI) of design
 * package files.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';

  await db.schema
    .createTable('authenticators')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential_id', 'varchar(512)', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', bigint, (c) => c.notNull())
    .addColumn('transports', 'varchar(256)', (c) => c.notNull())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('last_used_at', time)
    .execute();
  await db.schema.createIndex('authenticators_user_idx').on('authenticators').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('challenge_sha256', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webauthn_challenges_expires_idx').on('webauthn_challenges').column('expires_at').execute();

  await db.schema.alterTable('sessions').addColumn('escalated_until', time).execute();

  await db.schema
    .createTable('access_controls')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('policy_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('policy_name_key', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('constraints', 'varchar(256)', (c) => c.notNull())
    .addColumn('ip_ranges', 'text', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('access_roles')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('role_code', 'varchar(32)', (c) => c.notNull())
    .addColumn('constraint_name', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('access_role_members')
    .addColumn('role_id', uuid, (c) => c.notNull().references('access_roles.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('access_role_members_pk', ['role_id', 'user_id'])
    .execute();
  await db.schema.createIndex('access_role_members_user_idx').on('access_role_members').column('user_id').execute();

  await db.schema.alterTable('package_files').addColumn('classification', 'varchar(8)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('package_files').dropColumn('classification').execute();
  for (const table of ['access_role_members', 'access_roles', 'access_controls', 'webauthn_challenges', 'authenticators']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.alterTable('sessions').dropColumn('escalated_until').execute();
}
