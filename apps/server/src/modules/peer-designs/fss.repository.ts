import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { FssUploadTokensTable } from '../../db/schema-packages.js';
import { findUploadToken, spendUploadToken } from '../../db/upload-tokens.js';

/** The upload tokens of Protect instances, and who published a package. */
export class FssRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insertUploadToken(row: Selectable<FssUploadTokensTable>): Promise<void> {
    await this.db.insertInto('fss_upload_tokens').values(row).execute();
  }

  uploadToken(tokenHash: string): Promise<Selectable<FssUploadTokensTable> | undefined> {
    return findUploadToken(this.db, 'fss_upload_tokens', tokenHash);
  }

  /** Spends a token once: false when it was spent meanwhile or has expired. */
  spendUploadToken(tokenHash: string, now: string): Promise<boolean> {
    return spendUploadToken(this.db, 'fss_upload_tokens', tokenHash, now);
  }

  async packageCreator(dsiId: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('packages').select('created_by').where('id', '=', dsiId).executeTakeFirst();
    return row?.created_by;
  }
}
