import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';

/**
 * Design packages, their steps, files, templates and built revisions; stored images; machines;
 * and `entity_references`, through which later features (orders, authorizations) tell this one
 * that a package or a machine is in use.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? 'integer' : 'bigint';

  await db.schema
    .createTable('images')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('owner_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('packages')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('design_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('description', 'varchar(4000)', (c) => c.notNull())
    .addColumn('company_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('multi_platen', 'integer', (c) => c.notNull())
    .addColumn('display_image', 'varchar(64)', (c) => c.references('images.name'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'varchar(128)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('packages_name_idx').on('packages').columns(['design_name', 'id']).execute();

  await db.schema
    .createTable('device_templates')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('package_id', uuid, (c) => c.references('packages.id').onDelete('cascade'))
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    .addColumn('description', 'varchar(4000)')
    .addColumn('target', 'text')
    .addColumn('parameter_version', 'varchar(64)')
    .addColumn('parameter_count', 'integer', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(128)')
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_templates_package_idx').on('device_templates').columns(['package_id', 'name']).execute();
  await db.schema.createIndex('device_templates_name_idx').on('device_templates').columns(['name', 'id']).execute();

  await db.schema
    .createTable('workflow_steps')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('package_id', uuid, (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('step_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('device_template_id', uuid, (c) => c.references('device_templates.id'))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflow_steps_package_idx').on('workflow_steps').columns(['package_id', 'position']).execute();
  await db.schema.createIndex('workflow_steps_template_idx').on('workflow_steps').column('device_template_id').execute();

  await db.schema
    .createTable('package_files')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('package_id', uuid, (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(128)', (c) => c.notNull())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('stored_size', bigint, (c) => c.notNull())
    .addColumn('wrapped_key', 'text')
    .addColumn('created_by', 'varchar(128)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('package_files_package_idx').on('package_files').columns(['package_id', 'created_at']).execute();

  // Builds: rows written once and never updated.
  await db.schema
    .createTable('package_revisions')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('package_id', uuid, (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('dsi_version', 'integer', (c) => c.notNull())
    .addColumn('package_version', 'integer', (c) => c.notNull())
    .addColumn('design_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('description', 'varchar(4000)', (c) => c.notNull())
    .addColumn('company_name', 'varchar(256)', (c) => c.notNull())
    .addColumn('multi_platen', 'integer', (c) => c.notNull())
    .addColumn('display_image', 'varchar(64)')
    .addColumn('manifest', 'text', (c) => c.notNull())
    .addColumn('digest', 'varchar(64)', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('public_key_sn', 'varchar(64)')
    .addColumn('created_by', 'varchar(128)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addUniqueConstraint('package_revisions_version_uq', ['package_id', 'dsi_version'])
    .execute();
  await db.schema.createIndex('package_revisions_created_idx').on('package_revisions').columns(['created_at', 'id']).execute();

  // The stored objects a revision froze: kept while a revision names them.
  await db.schema
    .createTable('revision_files')
    .addColumn('revision_id', uuid, (c) => c.notNull().references('package_revisions.id').onDelete('cascade'))
    .addColumn('file_id', uuid, (c) => c.notNull())
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(128)', (c) => c.notNull())
    .addColumn('size', bigint, (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('wrapped_key', 'text')
    .addPrimaryKeyConstraint('revision_files_pk', ['revision_id', 'file_id'])
    .execute();
  await db.schema.createIndex('revision_files_storage_idx').on('revision_files').column('storage_key').execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('registration_state', 'varchar(16)', (c) => c.notNull())
    .addColumn('identity_id', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(256)', (c) => c.notNull())
    .addColumn('serial_number', 'varchar(128)', (c) => c.notNull())
    .addColumn('model', 'varchar(256)', (c) => c.notNull())
    .addColumn('family', 'varchar(256)')
    .addColumn('manufacturer', 'varchar(256)', (c) => c.notNull())
    .addColumn('device_class', 'varchar(256)')
    .addColumn('technology', 'varchar(256)')
    .addColumn('image', 'varchar(64)', (c) => c.references('images.name'))
    .addColumn('parameter_version', 'varchar(64)')
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('authorized_users', 'text', (c) => c.notNull())
    .addColumn('signing_certificate', 'text', (c) => c.notNull())
    .addColumn('signing_fingerprint', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('encryption_certificate', 'text', (c) => c.notNull())
    .addColumn('encryption_fingerprint', 'varchar(128)', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('source_ip', 'varchar(64)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('devices_state_idx').on('devices').columns(['registration_state', 'created_at']).execute();
  await db.schema.createIndex('devices_created_idx').on('devices').columns(['created_at', 'id']).execute();

  /**
   * Who uses a package or a machine. Orders add (`package`, dsiId, `order`, orderId) rows while
   * they refer to a package; authorizations add (`device`, deviceId, `authorization`, id,
   * expires_at) and set `released_at` when revoked or used up. A row is live while it is not
   * released and not expired.
   */
  await db.schema
    .createTable('entity_references')
    .addColumn('target_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('target_id', uuid, (c) => c.notNull())
    .addColumn('referrer_kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('referrer_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', time)
    .addColumn('released_at', time)
    .addColumn('created_at', time, (c) => c.notNull())
    .addPrimaryKeyConstraint('entity_references_pk', ['target_kind', 'target_id', 'referrer_kind', 'referrer_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'entity_references',
    'devices',
    'revision_files',
    'package_revisions',
    'package_files',
    'workflow_steps',
    'device_templates',
    'packages',
    'images',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
