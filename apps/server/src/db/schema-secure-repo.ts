import type { ColumnType, Selectable } from 'kysely';

/** A 64-bit count: PostgreSQL and MySQL drivers read BIGINT as a string. */
type BigCountOrNull = ColumnType<number | string | null, number | null, number | null>;

/** Tables of the secure file repository (migration 018, docs/secure-repository.md). */
export interface SecureRepoNodesTable {
  id: string;
  /** The folder it is in; null for a top-level folder. */
  parent_id: string | null;
  /** `parent_id`, or '' at the top level: one unique key (parent, name) on every database. */
  parent_key: string;
  /** `/id/…/id/` from the top-level folder down to this node: descendants share its prefix. */
  path: string;
  depth: number;
  is_folder: number;
  name: string;
  /** The name lower-cased: names are unique in a folder ignoring case. */
  name_key: string;
  description: string;
  owner: string;
  /** A file's plaintext size and SHA-256; null for a folder. */
  size: BigCountOrNull;
  sha256: string | null;
  content_type: string | null;
  storage_key: string | null;
  /** Bytes in storage (plaintext plus the record format's overhead). */
  stored_size: BigCountOrNull;
  /** The file's content key, sealed with the key-encryption key. */
  sealed_key: string | null;
  /** A folder's own label, `CUI`, `FCI` or null (migration 026); files follow their folders. */
  classification: string | null;
  created_at: string;
  updated_at: string;
}

/** The groups a folder is shared with (files follow their folder). */
export interface SecureRepoNodeGroupsTable {
  node_id: string;
  group_id: number;
}

export interface SecureRepoTables {
  secure_repo_nodes: SecureRepoNodesTable;
  secure_repo_node_groups: SecureRepoNodeGroupsTable;
}

export type SecureRepoNodeRow = Selectable<SecureRepoNodesTable>;

/** A node row as written: sizes are numbers (readable as a row and insertable). */
export type SecureRepoNodeValues = Omit<SecureRepoNodeRow, 'size' | 'stored_size'> & {
  size: number | null;
  stored_size: number | null;
};
