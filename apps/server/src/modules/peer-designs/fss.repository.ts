import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { FssUploadTokensTable } from '../../db/schema-packages.js';

/** The upload tokens of Protect instances, and who published a package. */
export class FssRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insertUploadToken(row: Selectable<FssUploadTokensTable>): Promise<void> {
    await this.db.insertInto('fss_upload_tokens').values(row).execute();
  }

  uploadToken(tokenHash: string): Promise<Selectable<FssUploadTokensTable> | undefined> {
    return this.db.selectFrom('fss_upload_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Spends a token once: false when it was spent meanwhile or has expired. */
  async spendUploadToken(tokenHash: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('fss_upload_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async packageCreator(dsiId: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('packages').select('created_by').where('id', '=', dsiId).executeTakeFirst();
    return row?.created_by;
  }
}
