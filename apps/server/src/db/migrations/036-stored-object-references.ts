import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

const uuid = 'varchar(36)';

type Inspections = Kysely<{
  quality_inspections: { id: string; pictures: string };
  quality_inspection_pictures: { inspection_id: string; position: number; storage_key: string };
}>;

/** Inspections read per round of the copy. */
const PAGE = 500;

/**
 * The storage sweeper (`jobs/storage-sweep.ts`) keeps an object only while a row names its key,
 * looked up over an index of each column that holds one. Two kinds of object had none: the files
 * of trace parameter values (`svp_values.storage_key`, not indexed) and inspection pictures (keys
 * inside the JSON of `quality_inspections.pictures`), so the hourly sweep deleted them once they
 * were older than its grace period. The values' column gets its index; each picture gets a row of
 * `quality_inspection_pictures` (the inspection, its place among the pictures, its key), copied
 * here from the inspections recorded so far and written from now on with the inspection.
 */
export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema.createIndex('svp_values_storage_idx').on('svp_values').column('storage_key').execute();
  await db.schema
    .createTable('quality_inspection_pictures')
    .addColumn('inspection_id', uuid, (c) => c.notNull().references('quality_inspections.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('quality_inspection_pictures_pk', ['inspection_id', 'position'])
    .execute();
  await db.schema
    .createIndex('quality_inspection_pictures_storage_idx')
    .on('quality_inspection_pictures')
    .column('storage_key')
    .execute();

  const inspections = db as Inspections;
  let after = '';
  for (;;) {
    const rows = await inspections
      .selectFrom('quality_inspections')
      .select(['id', 'pictures'])
      .where('id', '>', after)
      .where('pictures', '!=', '[]')
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    const pictures = rows.flatMap((row) =>
      (JSON.parse(row.pictures) as { key: string }[]).map((picture, position) => ({
        inspection_id: row.id,
        position,
        storage_key: picture.key,
      })),
    );
    if (pictures.length > 0) await inspections.insertInto('quality_inspection_pictures').values(pictures).execute();
    after = rows[rows.length - 1]!.id;
  }
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema.dropTable('quality_inspection_pictures').ifExists().execute();
  await dropIndexIfExists(db, kind, 'svp_values_storage_idx', 'svp_values');
}
