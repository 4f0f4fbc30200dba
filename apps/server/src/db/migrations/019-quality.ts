import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

const time = 'varchar(32)';
const uuid = 'varchar(36)';

/**
 * Quality (docs/quality.md): inspections of parts, each part's latest inspection kept on the
 * part (what the parts search filters, sorts and counts, indexed), and trace parameters (svp):
 * types, templates with their parameters, and the values recorded for builds and parts.
 */
export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  // one column per statement: SQLite adds one at a time
  for (const [name, type] of [
    ['inspection_id', uuid],
    ['inspection_result', 'varchar(8)'],
    ['inspected_at', time],
    ['technician', 'varchar(128)'],
    ['failure_reason', 'varchar(128)'],
  ] as const) {
    await db.schema.alterTable('parts').addColumn(name, type).execute();
  }
  // each statistic groups by one column and counts results over an inspection-time window: the
  // indexes cover those three columns, so a grouping reads an index and never the table
  const partIndexes: [string, string[]][] = [
    ['parts_inspected_idx', ['inspection_result', 'inspected_at']],
    ['parts_reason_idx', ['inspection_result', 'failure_reason', 'inspected_at']],
    ['parts_device_inspected_idx', ['device_id', 'inspected_at', 'inspection_result']],
    ['parts_dsi_inspected_idx', ['dsi_id', 'inspected_at', 'inspection_result']],
    ['parts_order_inspected_idx', ['order_id', 'inspected_at', 'inspection_result']],
    ['parts_technician_idx', ['technician', 'inspected_at', 'inspection_result']],
  ];
  for (const [name, columns] of partIndexes) await db.schema.createIndex(name).on('parts').columns(columns).execute();

  await db.schema
    .createTable('quality_inspections')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('part_id', uuid, (c) => c.notNull().references('parts.id'))
    .addColumn('build_id', uuid, (c) => c.notNull())
    /** `passed` or `failed`. */
    .addColumn('result', 'varchar(8)', (c) => c.notNull())
    .addColumn('reason', 'varchar(128)')
    .addColumn('technician', 'varchar(128)', (c) => c.notNull())
    .addColumn('notes', 'text')
    /** JSON `[{id, values}]`: the measured values of the order's quality parameters. */
    .addColumn('quality_values', 'text', (c) => c.notNull())
    /** JSON `[{key, fileName, contentType, size, sha256}]`: pictures in storage. */
    .addColumn('pictures', 'text', (c) => c.notNull())
    .addColumn('event_id', uuid, (c) => c.notNull())
    .addColumn('qms_state', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('quality_inspections_part_idx')
    .on('quality_inspections')
    .columns(['part_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('quality_inspections_build_idx')
    .on('quality_inspections')
    .columns(['build_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('quality_inspections_created_idx')
    .on('quality_inspections')
    .columns(['created_at', 'id'])
    .execute();

  await db.schema
    .createTable('svp_types')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('description', 'varchar(1000)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('svp_templates')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('type_id', uuid, (c) => c.notNull().references('svp_types.id'))
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('description', 'varchar(1000)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('svp_templates_type_idx').on('svp_templates').columns(['type_id', 'name_key']).execute();
  await db.schema
    .createTable('svp_parameters')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('template_id', uuid, (c) => c.notNull().references('svp_templates.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    /** `MANUAL_ENTRY`, `FILE`, `DTL`. */
    .addColumn('data_type', 'varchar(16)', (c) => c.notNull())
    /** `BUILD`, `PART`, `BUILD_PART`. */
    .addColumn('association', 'varchar(16)', (c) => c.notNull())
    .addColumn('units', 'varchar(64)')
    .addColumn('low', 'double precision')
    .addColumn('high', 'double precision')
    .addColumn('required', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('svp_parameters_template_idx').on('svp_parameters').columns(['template_id', 'position']).execute();
  await db.schema
    .createTable('svp_values')
    .addColumn('id', uuid, (c) => c.primaryKey())
    .addColumn('parameter_id', uuid, (c) => c.notNull().references('svp_parameters.id'))
    .addColumn('part_id', uuid)
    .addColumn('build_id', uuid)
    .addColumn('value', 'text')
    .addColumn('dtl_id', uuid)
    .addColumn('file_name', 'varchar(255)')
    .addColumn('content_type', 'varchar(128)')
    .addColumn('size', 'bigint')
    .addColumn('sha256', 'varchar(64)')
    .addColumn('storage_key', 'varchar(32)')
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('svp_values_part_idx').on('svp_values').columns(['part_id', 'created_at']).execute();
  await db.schema.createIndex('svp_values_build_idx').on('svp_values').columns(['build_id', 'created_at']).execute();
  await db.schema.createIndex('svp_values_parameter_idx').on('svp_values').columns(['parameter_id', 'created_at']).execute();
  await db.schema.createIndex('svp_values_created_idx').on('svp_values').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema.dropTable('svp_values').ifExists().execute();
  await db.schema.dropTable('svp_parameters').ifExists().execute();
  await db.schema.dropTable('svp_templates').ifExists().execute();
  await db.schema.dropTable('svp_types').ifExists().execute();
  await db.schema.dropTable('quality_inspections').ifExists().execute();
  for (const index of [
    'parts_inspected_idx',
    'parts_reason_idx',
    'parts_device_inspected_idx',
    'parts_dsi_inspected_idx',
    'parts_order_inspected_idx',
    'parts_technician_idx',
  ]) {
    await dropIndexIfExists(db, kind, index, 'parts');
  }
  for (const name of ['inspection_id', 'inspection_result', 'inspected_at', 'technician', 'failure_reason']) {
    await db.schema.alterTable('parts').dropColumn(name).execute();
  }
}
