import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { withIdColumn } from '../dialect.js';

const time = 'varchar(32)';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await withIdColumn(kind, db.schema.createTable('users'))
    .addColumn('username', 'varchar(128)', (c) => c.notNull())
    .addColumn('username_key', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(255)')
    .addColumn('first_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('last_name', 'varchar(128)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('company', 'varchar(256)')
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
    .addColumn('language', 'varchar(16)', (c) => c.notNull())
    .addColumn('use_sso', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_role_idx').on('users').column('role').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('revoked_at', time)
    .addColumn('escalated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source_ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(256)')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await withIdColumn(kind, db.schema.createTable('user_groups'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('description', 'varchar(2000)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_group_members')
    .addColumn('group_id', 'integer', (c) => c.notNull().references('user_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('user_group_members_user_idx').on('user_group_members').column('user_id').execute();

  await withIdColumn(kind, db.schema.createTable('audit_events'))
    .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('actor', 'varchar(128)')
    .addColumn('subject', 'varchar(256)')
    .addColumn('details', 'text')
    .addColumn('source_ip', 'varchar(64)')
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_created_idx').on('audit_events').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('audit_events_type_idx').on('audit_events').columns(['event_type', 'created_at']).execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('login_failures')
    .addColumn('key', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_start', time, (c) => c.notNull())
    .addColumn('locked_until', time)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['login_failures', 'settings', 'audit_events', 'user_group_members', 'user_groups', 'sessions', 'users']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
