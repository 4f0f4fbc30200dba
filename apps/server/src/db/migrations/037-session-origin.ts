import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';

const time = 'varchar(32)';

/**
 * What a session remembers of the login that opened it, carried over on every refresh:
 *
 * - `login_at`: when the login happened; refreshes never take the session past it plus
 *   `SESSION_MAX_LIFETIME_SECONDS` (before, a session refreshed in time lived for ever). The rows
 *   there are get their `created_at`: when that session was opened (by its login, or by the
 *   refresh it came from — the earlier login is not known), so a session refreshed before this
 *   migration runs gets the whole maximum from its last refresh.
 * - `identity_provider_id`: the identity provider whose login opened it (null: a password login);
 *   deleting or turning off the provider ends these sessions, looked up over its index. The rows
 *   there are keep null: which provider opened them is not known.
 */
export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('login_at', time).execute();
  await db.schema.alterTable('sessions').addColumn('identity_provider_id', 'varchar(36)').execute();
  await sql`update sessions set login_at = created_at`.execute(db);
  await db.schema.createIndex('sessions_identity_provider_idx').on('sessions').column('identity_provider_id').execute();
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await dropIndexIfExists(db, kind, 'sessions_identity_provider_idx', 'sessions');
  await db.schema.alterTable('sessions').dropColumn('identity_provider_id').execute();
  await db.schema.alterTable('sessions').dropColumn('login_at').execute();
}
