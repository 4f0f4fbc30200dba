import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * Migration 038 made `external_identities.issuer` and `subject` compare as binary on MariaDB, but
 * `utf8mb4_bin` is a PAD SPACE collation: it ignores trailing spaces, so `sub-1 ` was the same key
 * as `sub-1` and that person's login was refused (`ssoAccountNotLinked`). `utf8mb4_nopad_bin`
 * (MariaDB 10.2 and later; `utf8mb4_0900_bin` on MySQL 8) compares the exact bytes, trailing
 * spaces included: a subject that differs only in them is a link of its own, as on SQLite and
 * PostgreSQL, where nothing changes.
 * Existing links are all distinct under the stricter comparison.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  const collation = sql.raw(await exactCollation(db));
  await sql`alter table external_identities
    modify issuer varchar(512) character set utf8mb4 collate ${collation} not null,
    modify subject varchar(255) character set utf8mb4 collate ${collation} not null`.execute(db);
}

/**
 * The server's binary NO PAD collation of utf8mb4: MariaDB's `utf8mb4_nopad_bin`, or MySQL 8's
 * `utf8mb4_0900_bin` (MySQL has no `nopad_bin`; only MariaDB is tested here).
 */
async function exactCollation(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ name: string }>`select collation_name as name from information_schema.collations
    where collation_name in ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`.execute(db);
  const names = rows.map((row) => row.name);
  const found = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'].find((name) => names.includes(name));
  if (!found) throw new Error('the database server has no binary NO PAD collation for utf8mb4 (MariaDB 10.2 or MySQL 8 needed)');
  return found;
}

/** Back to 038's `utf8mb4_bin`: fails (and changes nothing) while two links differ only in trailing spaces. */
export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  await sql`alter table external_identities
    modify issuer varchar(512) character set utf8mb4 collate utf8mb4_bin not null,
    modify subject varchar(255) character set utf8mb4 collate utf8mb4_bin not null`.execute(db);
}
