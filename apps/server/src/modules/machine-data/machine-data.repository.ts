import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DtlsTable } from '../../db/schema-licensing.js';
import { type Viewer, visibleOrderIds } from '../licensing/orders.repository.js';

/** Machine data (DTL records), the upload tokens machines send them with, and what they refer to. */
export class MachineDataRepository {
  constructor(private readonly db: Kysely<DB>) {}

  uploadToken(tokenHash: string) {
    return this.db.selectFrom('upload_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Spends a token once: false when it was spent meanwhile or has expired. */
  async spendUploadToken(tokenHash: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('upload_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
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
