import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** What machine pulls write besides authorizations: spent nonces and one-time upload tokens. */
export class StpRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Records a nonce; a unique violation means the machine sent it before. */
  async spendNonce(deviceId: string, nonce: string, now: string): Promise<void> {
    await this.db.insertInto('stp_nonces').values({ device_id: deviceId, nonce, created_at: now }).execute();
  }

  /** Deletes every machine's nonces spent before `before`; how many. */
  async purgeNonces(before: string): Promise<number> {
    const result = await this.db.deleteFrom('stp_nonces').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async insertUploadToken(token: {
    tokenHash: string;
    deviceId: string;
    authorizationId: string | null;
    purpose: string;
    expiresAt: string;
    createdAt: string;
  }): Promise<void> {
    await this.db
      .insertInto('upload_tokens')
      .values({
        token_hash: token.tokenHash,
        device_id: token.deviceId,
        authorization_id: token.authorizationId,
        purpose: token.purpose,
        expires_at: token.expiresAt,
        used_at: null,
        created_at: token.createdAt,
      })
      .execute();
  }
}
