import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

/**
 * Users in the order of their names, ignoring case (the user list, and the members of a group or
 * an access role), not of their identity keys: a key is a confusable skeleton, so `mike` (key
 * `rnike`) sorted among the r-names. As the design package list (migration 033): SQLite and
 * PostgreSQL page it over an index on `lower(username)` and the id; MariaDB compares names
 * case-insensitively itself (the database's `_ci` collation), over one on `username` and the id.
 * The index on `username_key` and the id the list was sorted by goes (the key's unique index
 * still finds a user by name). A username never changes once the user is added, so the list-count
 * triggers of `users` (033: inserts, deletes and updates of `username_key`) still see every change
 * of this order.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind === 'mysql') {
    await db.schema.createIndex('users_name_order_idx').on('users').columns(['username', 'id']).execute();
  } else {
    await sql`create index users_name_order_idx on users (lower(username), id)`.execute(db);
  }
  await dropIndexIfExists(db, kind, 'users_name_key_idx', 'users');
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await db.schema.createIndex('users_name_key_idx').on('users').columns(['username_key', 'id']).execute();
  await dropIndexIfExists(db, kind, 'users_name_order_idx', 'users');
}
