import type { ColumnType } from 'kysely';

type BigCount = ColumnType<number | string, number, number>;

/** Tables of typed storage (migration 017; docs/storage.md). */
export interface StorageTypesTable {
  name: string;
  /** The type's folder as the admin named it: kept as data, never a file-system path. */
  path: string;
  configured: number;
  created_at: string;
  updated_at: string;
}

/** A file uploaded into a storage type, by name; its bytes are the object `storage_key`. */
export interface StorageFilesTable {
  id: string;
  type_name: string;
  filename: string;
  size: BigCount;
  sha256: string;
  storage_key: string;
  created_by: string;
  created_at: string;
}

export interface StorageTables {
  storage_types: StorageTypesTable;
  storage_files: StorageFilesTable;
}
