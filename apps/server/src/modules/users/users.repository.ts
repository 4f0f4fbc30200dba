import { type Expression, type Kysely, MysqlAdapter, sql } from 'kysely';
import type { TPage, TPageQuery, TRole, TUserProfile } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import type { DB, NewUserRow, UserRow, UserRowUpdate } from '../../db/schema.js';

import { usernameKey } from './usernames.js';

export { usernameKey };

/** The columns a user profile shows (never the password hash). */
export const profileColumns = [
  'id',
  'username',
  'first_name',
  'last_name',
  'email',
  'company',
  'role',
  'time_zone',
  'language',
  'use_sso',
  'created_at',
] as const;

/** A user as far as a profile (and a caller) needs it: no password hash. */
export type UserProfileRow = Pick<UserRow, (typeof profileColumns)[number]>;

export function toUserProfile(row: UserProfileRow): TUserProfile {
  return {
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    company: row.company,
    role: row.role as TRole,
    timeZone: row.time_zone,
    language: row.language,
    useSso: Number(row.use_sso) === 1,
    dateCreated: row.created_at,
  };
}

/**
 * The order users are listed in — the user list, a group's and an access role's members: by
 * username ignoring case (then by id), never by identity key (a confusable skeleton: `mike` is
 * `rnike`). `lower(username)` has an index on SQLite and PostgreSQL; MariaDB compares names
 * case-insensitively itself (the database's `_ci` collation), over an index on `username`
 * (migration 035).
 */
export function usernameOrder(db: Kysely<DB>): Expression<string> {
  return db.getExecutor().adapter instanceof MysqlAdapter ? sql.ref('users.username') : sql<string>`lower(users.username)`;
}

export class UsersRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).executeTakeFirst();
  }

  /** The usernames behind identity keys (`usernameKey`), for showing keys to people. */
  async usernamesByKeys(keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('users')
      .select(['username', 'username_key'])
      .where('username_key', 'in', keys)
      .execute();
    return new Map(rows.map((row) => [row.username_key, row.username]));
  }

  async findIdsByUsernames(usernames: string[]): Promise<Map<string, number>> {
    const keys = [...new Set(usernames.map(usernameKey))];
    if (keys.length === 0) return new Map();
    const rows = await this.db.selectFrom('users').select(['id', 'username_key']).where('username_key', 'in', keys).execute();
    return new Map(rows.map((row) => [row.username_key, row.id]));
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(page: TPageQuery, search?: string): Promise<TPage<TUserProfile>> {
    const term = search?.trim();
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['users', term ?? '']),
        tables: ['users'],
        readByKey: true,
        ...(term
          ? // the username as typed, not its identity key: the key is a confusable skeleton (`mike` is `rnike`)
            { search: { columns: ['users.username', 'users.first_name', 'users.last_name', 'users.email'], term } }
          : { counted: [WHOLE_TABLE] }),
      },
      this.db.selectFrom('users'),
      { value: usernameOrder(this.db), id: sql.ref('users.id'), direction: 'asc', computed: true },
      page,
      (base) => base.select(profileColumns),
      (rows) => rows.map(toUserProfile),
    );
  }

  insert(row: NewUserRow): Promise<number> {
    return this.dialect.insertId(this.db, 'users', row);
  }

  async update(id: number, changes: UserRowUpdate): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('users').where('id', '=', id).execute();
  }

  /**
   * Holds the user's row shared until the transaction ends. A transaction that changes a user's
   * sessions takes the user's row first, as every change of the user does before it ends the
   * user's sessions: taken the other way round (a session row, then the user's row for the new
   * session's foreign key), a refresh and a role change deadlock on MariaDB.
   */
  async holdShared(id: number): Promise<void> {
    await this.dialect.forShare(this.db.selectFrom('users').select('id').where('id', '=', id)).execute();
  }

  /**
   * Locks every ADMIN row until the transaction ends and answers their ids. Two transactions
   * that each remove an admin therefore run one after the other, and the second sees the first's
   * result: the last ADMIN can never be removed, however requests race.
   */
  async lockAdmins(): Promise<number[]> {
    const rows = await this.dialect.forUpdate(this.db.selectFrom('users').select('id').where('role', '=', 'ADMIN')).execute();
    return rows.map((row) => row.id);
  }
}
