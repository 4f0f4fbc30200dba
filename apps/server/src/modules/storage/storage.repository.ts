import type { Insertable, Kysely, Selectable } from 'kysely';
import type { TPage, TPageQuery, TStorageFile, TStorageType } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { StorageFilesTable, StorageTypesTable } from '../../db/schema-storage.js';
import { paginate } from '../../db/paging.js';
import { isoNow } from '../../lib/time.js';

export type StorageFileRow = Selectable<StorageFilesTable>;

/** Storage types and the files uploaded into them. */
export class StorageRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async types(): Promise<TStorageType[]> {
    const rows = await this.db.selectFrom('storage_types').selectAll().orderBy('name').execute();
    return rows.map(toType);
  }

  async type(name: string): Promise<TStorageType | undefined> {
    const row = await this.db.selectFrom('storage_types').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toType(row) : undefined;
  }

  /**
   * Adds the type or changes the one of its name, in one statement: requests that race to add the
   * same new name both succeed, as they would one after the other (never a unique violation).
   */
  async saveType(type: TStorageType, dialect: Dialect): Promise<void> {
    const now = isoNow();
    const values = { name: type.name, path: type.path, configured: type.configured ? 1 : 0, created_at: now, updated_at: now };
    const insert = this.db.insertInto('storage_types').values(values);
    const changes = { path: values.path, configured: values.configured, updated_at: now };
    await (
      dialect.kind === 'mysql'
        ? insert.onDuplicateKeyUpdate(changes)
        : insert.onConflict((conflict) => conflict.column('name').doUpdateSet(changes))
    ).execute();
  }

  /** By name ignoring case (the same order on every database), then as spelled. */
  files(typeName: string, page: TPageQuery): Promise<TPage<TStorageFile>> {
    return paginate(
      this.db.selectFrom('storage_files').where('type_name', '=', typeName),
      page,
      (base) =>
        base
          .selectAll()
          .orderBy((eb) => eb.fn('lower', ['filename']))
          .orderBy('filename')
          .orderBy('id'),
      (rows) => rows.map(toFile),
    );
  }

  /**
   * The type's file of this name, ignoring case: names that differ only in case name one file (a
   * Windows or macOS disk cannot hold both), on every database as under MariaDB's collation. Names
   * are ASCII (`storageFileNamePattern`), which `lower` folds alike everywhere.
   */
  file(typeName: string, filename: string): Promise<StorageFileRow | undefined> {
    return this.db
      .selectFrom('storage_files')
      .selectAll()
      .where('type_name', '=', typeName)
      .where((eb) => eb(eb.fn('lower', ['filename']), '=', filename.toLowerCase()))
      .executeTakeFirst();
  }

  /**
   * Locks the type's row until the transaction ends: uploads into one type replace their files
   * one after the other, so two of the same name cannot both find none and both insert.
   */
  async lockType(name: string, dialect: Dialect): Promise<void> {
    await dialect.forUpdate(this.db.selectFrom('storage_types').select('name').where('name', '=', name)).execute();
  }

  /**
   * Adds the file, replacing one of the same name ignoring case (the new spelling stays); answers
   * the replaced row's storage key.
   */
  async replaceFile(row: Insertable<StorageFilesTable>): Promise<string | undefined> {
    const previous = await this.file(row.type_name, row.filename);
    if (previous) await this.db.deleteFrom('storage_files').where('id', '=', previous.id).execute();
    await this.db.insertInto('storage_files').values(row).execute();
    return previous?.storage_key;
  }
}

function toType(row: Pick<StorageTypesTable, 'name' | 'path' | 'configured'>): TStorageType {
  return { name: row.name, path: row.path, configured: row.configured === 1 };
}

export function toFile(row: { filename: string; size: number | string; sha256: string; created_at: string }): TStorageFile {
  return { filename: row.filename, filesize: Number(row.size), sha256: row.sha256, dateCreated: row.created_at };
}
