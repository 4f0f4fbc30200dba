import type { Kysely, Selectable } from 'kysely';
import type { DB } from './schema.js';

/** The tables of single-use upload tokens: machines' (machine data) and Protect instances' (FSS). */
export type UploadTokenTable = 'upload_tokens' | 'fss_upload_tokens';

/** A token of `table` by the hash of its secret, spent or not. */
export function findUploadToken<T extends UploadTokenTable>(
  db: Kysely<DB>,
  table: T,
  tokenHash: string,
): Promise<Selectable<DB[T]> | undefined> {
  return db
    .selectFrom(table as UploadTokenTable)
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst() as Promise<Selectable<DB[T]> | undefined>;
}

/** Spends a token of `table` once: false when it was spent meanwhile or has expired. */
export async function spendUploadToken(
  db: Kysely<DB>,
  table: UploadTokenTable,
  tokenHash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
