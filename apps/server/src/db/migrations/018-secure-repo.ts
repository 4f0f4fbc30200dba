import { type Kysely, sql } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * The secure file repository (docs/secure-repository.md): folders and files in one table of
 * nodes, a name unique in its folder ignoring case (`parent_key`, `name_key`), the node's path
 * of ids for whole-subtree deletes; files carry their storage key and their sealed content key.
 * Folders are shared with groups; a deleted group or node takes its sharing rows with it.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';
  await db.schema
    .createTable('secure_repo_nodes')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('parent_id', 'varchar(36)')
    .addColumn('parent_key', 'varchar(36)', (c) => c.notNull())
    .addColumn('path', 'varchar(640)', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('is_folder', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(300)', (c) => c.notNull())
    // binary on MySQL too, so that only case (already folded here) is ignored, not accents
    .addColumn('name_key', 'varchar(400)', (c) =>
      kind === 'mysql' ? c.notNull().modifyEnd(sql`collate utf8mb4_bin`) : c.notNull(),
    )
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('owner', 'varchar(160)', (c) => c.notNull())
    .addColumn('size', bigint)
    .addColumn('sha256', 'varchar(64)')
    .addColumn('content_type', 'varchar(160)')
    .addColumn('storage_key', 'varchar(64)')
    .addColumn('stored_size', bigint)
    .addColumn('sealed_key', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('secure_repo_nodes_name_idx')
    .on('secure_repo_nodes')
    .columns(['parent_key', 'name_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('secure_repo_nodes_list_idx')
    .on('secure_repo_nodes')
    .columns(['parent_key', 'is_folder', 'name_key'])
    .execute();
  await db.schema.createIndex('secure_repo_nodes_storage_idx').on('secure_repo_nodes').column('storage_key').execute();
  await db.schema
    .createTable('secure_repo_node_groups')
    .addColumn('node_id', 'varchar(36)', (c) => c.notNull().references('secure_repo_nodes.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('user_groups.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('secure_repo_node_groups_pk', ['node_id', 'group_id'])
    .execute();
  await db.schema.createIndex('secure_repo_node_groups_group_idx').on('secure_repo_node_groups').column('group_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('secure_repo_node_groups').execute();
  await db.schema.dropTable('secure_repo_nodes').execute();
}
