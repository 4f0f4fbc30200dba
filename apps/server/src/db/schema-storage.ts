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

/**
 * A design package file uploaded into the design archive (`das/upload`, migration 026): the DSI
 * entry fields read from it; its bytes are the object `storage_key`.
 */
export interface DasEntriesTable {
  id: string;
  dsi_id: string;
  dsi_version: number;
  package_version: number;
  design_name: string;
  description: string;
  company_name: string;
  multi_platen: number;
  display_image: string | null;
  public_key_sn: string | null;
  key_role_sn: string | null;
  protect_user_name: string | null;
  image_url: string | null;
  dsi_url: string | null;
  manage_url: string;
  /** SHA-256 (hex) of the manifest, as the package states and as checked. */
  digest: string;
  signature: string;
  storage_key: string;
  size: BigCount;
  /** SHA-256 (hex) of the package file. */
  sha256: string;
  created_by: string;
  created_at: string;
}

export interface StorageTables {
  storage_types: StorageTypesTable;
  storage_files: StorageFilesTable;
  das_entries: DasEntriesTable;
}
