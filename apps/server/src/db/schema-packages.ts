import type { ColumnType, Insertable, Selectable } from 'kysely';

/**
 * Tables of design packages and machines (migration 003). Sizes are `bigint` on PostgreSQL and
 * MySQL, which the drivers may answer as strings: read them with `Number()`.
 */
type BigCount = ColumnType<number | string, number, number>;

export interface ImagesTable {
  /** `<32 hex>.<png|jpg|webp>`: generated, also the public name. */
  name: string;
  owner_kind: 'device' | 'package';
  content_type: string;
  size: number;
  sha256: string;
  storage_key: string;
  created_at: string;
}

export interface PackagesTable {
  id: string;
  design_name: string;
  description: string;
  company_name: string;
  multi_platen: number;
  display_image: string | null;
  version: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeviceTemplatesTable {
  id: string;
  package_id: string | null;
  name: string;
  description: string | null;
  /** JSON of the template's target identity, or null. */
  target: string | null;
  parameter_version: string | null;
  parameter_count: number;
  /** Canonical JSON of the imported document. */
  document: string;
  sha256: string;
  created_by: string | null;
  created_at: string;
}

export interface WorkflowStepsTable {
  id: string;
  package_id: string;
  position: number;
  step_type: string;
  name: string;
  instructions: string;
  device_template_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface PackageFilesTable {
  id: string;
  package_id: string;
  file_name: string;
  content_type: string;
  /** Plaintext bytes. */
  size: BigCount;
  /** SHA-256 of the plaintext. */
  sha256: string;
  is_public: number;
  storage_key: string;
  /** Bytes in storage (plaintext size plus the encryption overhead for private files). */
  stored_size: BigCount;
  /** The content key as a compact JWE for the server's encryption certificate; null when public. */
  wrapped_key: string | null;
  /** `CUI`, `FCI` or null (not controlled): which access-control constraints gate the file. */
  classification: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface PackageRevisionsTable {
  id: string;
  package_id: string;
  dsi_version: number;
  package_version: number;
  design_name: string;
  description: string;
  company_name: string;
  multi_platen: number;
  display_image: string | null;
  manifest: string;
  digest: string;
  signature: string;
  public_key_sn: string | null;
  created_by: string | null;
  created_at: string;
  /** The PEM chain the manifest was signed with when the revision came from a peer or a Protect; null when built here. */
  signer_certificate: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One-time tokens a Protect publishes a design with (`/fss/getUploadToken`, migration 023). */
export interface FssUploadTokensTable {
  token_hash: string;
  protect_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface RevisionFilesTable {
  revision_id: string;
  file_id: string;
  file_name: string;
  content_type: string;
  size: BigCount;
  sha256: string;
  is_public: number;
  storage_key: string;
  wrapped_key: string | null;
}

export interface DevicesTable {
  id: string;
  registration_state: string;
  identity_id: string;
  name: string;
  serial_number: string;
  model: string;
  family: string | null;
  manufacturer: string;
  device_class: string | null;
  technology: string | null;
  image: string | null;
  parameter_version: string | null;
  /** JSON array of device parameters. */
  parameters: string;
  /** JSON array of usernames. */
  authorized_users: string;
  signing_certificate: string;
  signing_fingerprint: string;
  encryption_certificate: string;
  encryption_fingerprint: string;
  disabled: number;
  version: number;
  source_ip: string | null;
  created_at: string;
  updated_at: string;
}

export interface EntityReferencesTable {
  target_kind: 'package' | 'device';
  target_id: string;
  referrer_kind: string;
  referrer_id: string;
  expires_at: string | null;
  released_at: string | null;
  created_at: string;
}

export interface PackageTables {
  images: ImagesTable;
  packages: PackagesTable;
  device_templates: DeviceTemplatesTable;
  workflow_steps: WorkflowStepsTable;
  package_files: PackageFilesTable;
  package_revisions: PackageRevisionsTable;
  revision_files: RevisionFilesTable;
  fss_upload_tokens: FssUploadTokensTable;
  devices: DevicesTable;
  entity_references: EntityReferencesTable;
}

export type PackageRow = Selectable<PackagesTable>;
export type WorkflowStepRow = Selectable<WorkflowStepsTable>;
export type PackageFileRow = Selectable<PackageFilesTable>;
export type DeviceTemplateRow = Selectable<DeviceTemplatesTable>;
export type RevisionRow = Selectable<PackageRevisionsTable>;
export type RevisionFileRow = Selectable<RevisionFilesTable>;
export type NewRevisionFileRow = Insertable<RevisionFilesTable>;
export type NewPackageFileRow = Insertable<PackageFilesTable>;
/** A file row as written: sizes are numbers (readable as a row and insertable). */
export type PackageFileValues = Omit<PackageFileRow, 'size' | 'stored_size'> & { size: number; stored_size: number };
export type DeviceRow = Selectable<DevicesTable>;
export type ImageRow = Selectable<ImagesTable>;
