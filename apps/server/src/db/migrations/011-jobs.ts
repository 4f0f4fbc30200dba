import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists, withIdColumn } from '../dialect.js';

const time = 'varchar(32)';

/**
 * Background jobs (see docs/background-jobs.md): one row per unit of work, claimed with a lease.
 * Also the indexes the first jobs need: the session purge looks sessions up by end, the storage
 * sweeper looks stored objects up by key.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await withIdColumn(kind, db.schema.createTable('jobs'))
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', time, (c) => c.notNull())
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', time)
    .addColumn('last_error', 'text')
    /** At most one job per key, ever (until the finished job is purged): recurring slots, "once" work. */
    .addColumn('dedupe_key', 'varchar(255)', (c) => c.unique())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_state_run_idx').on('jobs').columns(['state', 'run_at', 'id']).execute();
  await db.schema.createIndex('jobs_state_lease_idx').on('jobs').columns(['state', 'lease_until']).execute();
  await db.schema.createIndex('jobs_state_updated_idx').on('jobs').columns(['state', 'updated_at', 'id']).execute();

  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_revoked_idx').on('sessions').column('revoked_at').execute();
  await db.schema.createIndex('images_storage_idx').on('images').column('storage_key').execute();
  await db.schema.createIndex('package_files_storage_idx').on('package_files').column('storage_key').execute();
  await db.schema.createIndex('dtls_storage_idx').on('dtls').column('storage_key').execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const [index, table] of [
    ['dtls_storage_idx', 'dtls'],
    ['package_files_storage_idx', 'package_files'],
    ['images_storage_idx', 'images'],
    ['sessions_revoked_idx', 'sessions'],
    ['sessions_expires_idx', 'sessions'],
  ] as const)
    await dropIndexIfExists(db, kind, index, table);
  await db.schema.dropTable('jobs').ifExists().execute();
}
