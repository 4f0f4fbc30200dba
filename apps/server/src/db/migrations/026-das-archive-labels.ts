import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

const time = 'varchar(32)';

/**
 * The design archive's uploaded entries (`das/upload`, docs/storage.md): a design package file
 * kept as an object of the storage provider, with the DSI entry fields read from it; one entry
 * per DSI and DSI version. The CUI/FCI label of secure-repository folders
 * (docs/secure-repository.md).
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';
  await db.schema
    .createTable('das_entries')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('dsi_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('dsi_version', 'integer', (c) => c.notNull())
    .addColumn('package_version', 'integer', (c) => c.notNull())
    .addColumn('design_name', 'varchar(300)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('company_name', 'varchar(300)', (c) => c.notNull())
    .addColumn('multi_platen', 'integer', (c) => c.notNull())
    .addColumn('display_image', 'varchar(300)')
    .addColumn('public_key_sn', 'varchar(128)')
    .addColumn('key_role_sn', 'varchar(128)')
    .addColumn('protect_user_name', 'varchar(160)')
    .addColumn('image_url', 'varchar(2048)')
    .addColumn('dsi_url', 'varchar(2048)')
    .addColumn('manage_url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('digest', 'varchar(64)', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(160)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('das_entries_version_idx').on('das_entries').columns(['dsi_id', 'dsi_version']).unique().execute();
  await db.schema.createIndex('das_entries_created_idx').on('das_entries').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('das_entries_storage_idx').on('das_entries').column('storage_key').execute();

  await db.schema.alterTable('secure_repo_nodes').addColumn('classification', 'varchar(8)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('secure_repo_nodes').dropColumn('classification').execute();
  await db.schema.dropTable('das_entries').ifExists().execute();
}
