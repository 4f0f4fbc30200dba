import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Database vocabulary: tables plural snake_case, columns snake_case. Times are ISO-8601 UTC
 * strings of fixed width (they sort as they compare); booleans are integers 0/1 on every
 * dialect; JSON is text. Mapping to the spec's camelCase happens once, in the repositories.
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** Lower-cased username: uniqueness is case-insensitive on every database. */
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
  source_ip: string | null;
  user_agent: string | null;
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

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  user_groups: UserGroupsTable;
  user_group_members: UserGroupMembersTable;
  audit_events: AuditEventsTable;
  settings: SettingsTable;
  login_failures: LoginFailuresTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserRowUpdate = Updateable<UsersTable>;
export type GroupRow = Selectable<UserGroupsTable>;
export type SessionRow = Selectable<SessionsTable>;
