import type { Selectable } from 'kysely';

/** A registered security key (WebAuthn credential) of a user. */
export interface AuthenticatorsTable {
  id: string;
  user_id: number;
  /** base64url credential id. */
  credential_id: string;
  /** base64url COSE public key. */
  public_key: string;
  /** Signature counter last seen (0 for authenticators that do not count). */
  counter: number | string;
  /** Comma-delimited transports the browser reported. */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * A challenge handed out for one registration or assertion: single use, expiring. Kept as the
 * SHA-256 (lower-case hex) of its base64url text, so lookups are exact on every database
 * (MySQL's default collation compares text case-insensitively).
 */
export interface WebAuthnChallengesTable {
  challenge_sha256: string;
  user_id: number;
  session_id: string;
  purpose: string;
  expires_at: string;
}

export interface AccessControlsTable {
  id: string;
  policy_name: string;
  policy_name_key: string;
  /** Comma-delimited constraints. */
  constraints: string;
  /** Comma-delimited addresses and CIDR ranges. */
  ip_ranges: string;
  created_at: string;
}

export interface AccessRolesTable {
  id: string;
  role_code: string;
  constraint_name: string;
  created_at: string;
}

export interface AccessRoleMembersTable {
  role_id: string;
  user_id: number;
}

export interface SecurityTables {
  authenticators: AuthenticatorsTable;
  webauthn_challenges: WebAuthnChallengesTable;
  access_controls: AccessControlsTable;
  access_roles: AccessRolesTable;
  access_role_members: AccessRoleMembersTable;
}

export type AuthenticatorRow = Selectable<AuthenticatorsTable>;
export type AccessControlRow = Selectable<AccessControlsTable>;
export type AccessRoleRow = Selectable<AccessRolesTable>;
