import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';

/**
 * MariaDB's `text` holds 64 KiB; an event's signed proof can be up to 256 KiB (an XML document
 * whose 32 data values of 1,024 characters are escaped as entities) and its `data` as JSON more
 * than 64 KiB (control characters escaped as `\uXXXX`). SQLite's and PostgreSQL's `text` has no
 * such limit.
 */
export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  await sql`alter table trace_events modify proof mediumtext not null`.execute(db);
  await sql`alter table trace_events modify data mediumtext not null`.execute(db);
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'mysql') return;
  await sql`alter table trace_events modify proof text not null`.execute(db);
  await sql`alter table trace_events modify data text not null`.execute(db);
}
