import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DtlsTable } from '../../db/schema-licensing.js';
import { findUploadToken, spendUploadToken } from '../../db/upload-tokens.js';
import { type Viewer, visibleOrderIds } from '../licensing/orders.repository.js';

/** Machine data (DTL records), the upload tokens machines send them with, and what they refer to. */
export class MachineDataRepository {
  constructor(private readonly db: Kysely<DB>) {}

  uploadToken(tokenHash: string) {
    return findUploadToken(this.db, 'upload_tokens', tokenHash);
  }

  /** Spends a token once: false when it was spent meanwhile or has expired. */
  spendUploadToken(tokenHash: string, now: string): Promise<boolean> {
    return spendUploadToken(this.db, 'upload_tokens', tokenHash, now);
  }

  device(deviceId: string) {
    return this.db
      .selectFrom('devices')
      .select(['id', 'registration_state', 'disabled'])
      .where('id', '=', deviceId)
      .executeTakeFirst();
  }

  /** An authorization of this machine with its order and design. */
  authorizationOf(authorizationId: string, deviceId: string) {
    return this.db
      .selectFrom('authorizations')
      .select(['id', 'order_id', 'dsi_id', 'state'])
      .where('id', '=', authorizationId)
      .where('device_id', '=', deviceId)
      .executeTakeFirst();
  }

  async orderVisibleTo(orderId: string, viewer: Viewer): Promise<boolean> {
    const row = await visibleOrderIds(this.db, viewer).where('order_groups.order_id', '=', orderId).executeTakeFirst();
    return row !== undefined;
  }

  async insertDtl(row: Insertable<DtlsTable>): Promise<void> {
    await this.db.insertInto('dtls').values(row).execute();
  }
}
