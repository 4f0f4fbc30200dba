import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

const time = 'varchar(32)';

/**
 * Typed storage (docs/storage.md): `storage_types` names the kinds of file the server keeps
 * (`dsi` and `dtl` from the start), `storage_files` the files uploaded into a type by name, each
 * an object of the selected storage provider.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';
  await db.schema
    .createTable('storage_types')
    .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('path', 'varchar(256)', (c) => c.notNull())
    .addColumn('configured', 'integer', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  const now = new Date().toISOString();
  await db
    .insertInto('storage_types' as never)
    .values([
      { name: 'dsi', path: 'dsi', configured: 1, created_at: now, updated_at: now },
      { name: 'dtl', path: 'dtl', configured: 1, created_at: now, updated_at: now },
    ] as never)
    .execute();
  await db.schema
    .createTable('storage_files')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('type_name', 'varchar(32)', (c) => c.notNull())
    .addColumn('filename', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(160)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('storage_files_name_idx').on('storage_files').columns(['type_name', 'filename']).unique().execute();
  await db.schema.createIndex('storage_files_key_idx').on('storage_files').column('storage_key').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('storage_files').ifExists().execute();
  await db.schema.dropTable('storage_types').ifExists().execute();
}
