import type { Kysely } from 'kysely';
import type { TOrderSender } from '@manifold/contract';
import type { DB } from '../../db/schema.js';
import type { OrderSenderRow } from '../../db/schema-licensing.js';

export function toSender(row: OrderSenderRow): TOrderSender {
  return {
    fingerprint: row.fingerprint,
    name: row.name,
    subject: row.subject,
    keySerialNumber: row.serial_number,
    notAfter: row.not_after,
    dateCreated: row.created_at,
  };
}

/** Certificates trusted to sign `/apl/order/add`, by their SHA-256 thumbprint. */
export class OrderSendersRepository {
  constructor(private readonly db: Kysely<DB>) {}

  find(fingerprint: string): Promise<OrderSenderRow | undefined> {
    return this.db.selectFrom('order_senders').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst();
  }

  async list(): Promise<TOrderSender[]> {
    const rows = await this.db.selectFrom('order_senders').selectAll().orderBy('created_at').orderBy('fingerprint').execute();
    return rows.map(toSender);
  }

  /** Trusts the certificate (again, replacing an earlier row of the same thumbprint). */
  async replace(row: OrderSenderRow): Promise<void> {
    await this.db.deleteFrom('order_senders').where('fingerprint', '=', row.fingerprint).execute();
    await this.db.insertInto('order_senders').values(row).execute();
  }

  /** Answers whether a sender was removed. */
  async delete(fingerprint: string): Promise<boolean> {
    const result = await this.db.deleteFrom('order_senders').where('fingerprint', '=', fingerprint).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
