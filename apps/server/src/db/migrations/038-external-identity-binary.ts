import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * A provider's subjects (and issuers) are exact strings (OIDC Core §2), but on MariaDB/MySQL the
 * key of `external_identities` (issuer, subject) took the table's `_ci` collation: `SUB-1` or
 * `süb-1` was the same key as `sub-1`, so a second person at the provider could not be linked
 * (sso-accounts.ts refused the login). Both columns compare as binary (`utf8mb4_bin`) from here:
 * subjects that differ in case or accents are distinct links. MariaDB's `utf8mb4_bin` still
 * ignores trailing spaces (PAD SPACE), so `sub-1 ` keeps meeting `sub-1` and is still refused
 * there (until 039-external-identity-nopad). Nothing to do on SQLite and PostgreSQL, which compare
 * text exactly. Existing links are all distinct under the stricter comparison.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  await sql`alter table external_identities
    modify issuer varchar(512) character set utf8mb4 collate utf8mb4_bin not null,
    modify subject varchar(255) character set utf8mb4 collate utf8mb4_bin not null`.execute(db);
}

/** Back to the table's collation: fails (and changes nothing) while two links differ only in case or accents. */
export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  await sql`alter table external_identities modify issuer varchar(512) not null, modify subject varchar(255) not null`.execute(
    db,
  );
}
