import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { JobTables } from './schema-jobs.js';
import type { LicensingTables } from './schema-licensing.js';
import type { PackageTables } from './schema-packages.js';
import type { TraceTables } from './schema-trace.js';
import type { PeerTables } from './schema-peers.js';
import type { StorageTables } from './schema-storage.js';
import type { QualityTables } from './schema-quality.js';
import type { IdentityTables } from './schema-identity.js';
import type { SecurityTables } from './schema-security.js';
import type { SecureRepoTables } from './schema-secure-repo.js';

/**
 * Database vocabulary: tables plural snake_case, columns snake_case. Times are ISO-8601 UTC
 * strings of fixed width (they sort as they compare); booleans are integers 0/1 on every
 * dialect; JSON is text. Mapping to the spec's camelCase happens once, in the repositories.
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** The username's confusable skeleton (`usernameKey`): no two accounts' names look alike, on every database. */
  username_key: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  email: string;
  company: string | null;
  role: string;
  time_zone: string;
  language: string;
  use_sso: number;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  escalated: number;
  /** Until when `escalated` holds (a security-key assertion); null: never escalated. */
  escalated_until: ColumnType<string | null, string | null | undefined, string | null>;
  source_ip: string | null;
  user_agent: string | null;
  /**
   * When the login that opened the session (or the one it was refreshed from) happened: refreshes
   * carry it over and never take the session past it plus `SESSION_MAX_LIFETIME_SECONDS`. Null
   * only in a row written before migration 037 by a server still running the old code.
   */
  login_at: string | null;
  /** The identity provider whose login opened the session (carried over on refresh); null: a password login. */
  identity_provider_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UserGroupsTable {
  id: Generated<number>;
  name: string;
  name_key: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface UserGroupMembersTable {
  group_id: number;
  user_id: number;
}

export interface AuditEventsTable {
  id: Generated<number>;
  event_type: string;
  actor: string | null;
  subject: string | null;
  details: string | null;
  source_ip: string | null;
  created_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface LoginFailuresTable {
  key: string;
  failures: number;
  window_start: string;
  locked_until: string | null;
}

/** The server's key pair of one purpose (`signing`, `encryption`); the private key sealed. */
export interface ServerKeyPairsTable {
  purpose: string;
  key_type: string;
  public_key_pem: string;
  sealed_private_key: string;
  generation: number;
  created_at: string;
}

/** The installed certificate of one purpose: PEM of the leaf followed by its intermediates. */
export interface ServerCertificatesTable {
  purpose: string;
  certificate_pem: string;
  subject: string;
  issuer: string;
  serial_number: string;
  not_before: string;
  not_after: string;
  fingerprint_sha256: string;
  trust_anchor_fingerprint: string;
  development: number;
  installed_at: string;
}

/** Root certificates of the network that chains must end in. */
export interface TrustAnchorsTable {
  fingerprint_sha256: string;
  certificate_pem: string;
  subject: string;
  not_after: string;
  development: number;
  created_at: string;
}

/** DEVELOPMENT ONLY: the local network CA enabled by DEVELOPMENT_CA=true. */
export interface DevelopmentCaTable {
  id: string;
  key_type: string;
  certificate_pem: string;
  sealed_private_key: string;
  created_at: string;
}

export interface DB
  extends
    PackageTables,
    LicensingTables,
    JobTables,
    TraceTables,
    PeerTables,
    StorageTables,
    QualityTables,
    IdentityTables,
    SecurityTables,
    SecureRepoTables {
  users: UsersTable;
  sessions: SessionsTable;
  user_groups: UserGroupsTable;
  user_group_members: UserGroupMembersTable;
  audit_events: AuditEventsTable;
  settings: SettingsTable;
  login_failures: LoginFailuresTable;
  server_key_pairs: ServerKeyPairsTable;
  server_certificates: ServerCertificatesTable;
  trust_anchors: TrustAnchorsTable;
  development_ca: DevelopmentCaTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserRowUpdate = Updateable<UsersTable>;
export type GroupRow = Selectable<UserGroupsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type NewSessionRow = Insertable<SessionsTable>;
export type ServerKeyPairRow = Selectable<ServerKeyPairsTable>;
export type ServerCertificateRow = Selectable<ServerCertificatesTable>;
export type TrustAnchorRow = Selectable<TrustAnchorsTable>;
export type DevelopmentCaRow = Selectable<DevelopmentCaTable>;
