import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** A queued message to a downstream Manage instance (kind `authorization` today). */
export interface Delivery {
  id: number;
  state: string;
}

/**
 * The outbox: messages to peers written in the transaction of the change they announce, and
 * delivered later by the peer client.
 */
export class OutboxRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The latest delivery of each authorization, by authorization id. */
  async deliveryStates(authorizationIds: string[]): Promise<Map<string, string>> {
    if (authorizationIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('outbox')
      .select(['subject_id', 'state'])
      .where('kind', '=', 'authorization')
      .where('subject_id', 'in', authorizationIds)
      .orderBy('id')
      .execute();
    return new Map(rows.map((row) => [row.subject_id, row.state]));
  }

  latestDelivery(authorizationId: string): Promise<Delivery | undefined> {
    return this.db
      .selectFrom('outbox')
      .select(['id', 'state'])
      .where('kind', '=', 'authorization')
      .where('subject_id', '=', authorizationId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** A delivery of the authorization that is waiting or done (not cancelled). */
  queuedDelivery(authorizationId: string): Promise<Pick<Delivery, 'state'> | undefined> {
    return this.db
      .selectFrom('outbox')
      .select('state')
      .where('kind', '=', 'authorization')
      .where('subject_id', '=', authorizationId)
      .where('state', 'in', ['pending', 'delivered'])
      .executeTakeFirst();
  }

  /** Withdraws a delivery that has not gone out yet. */
  async cancelPending(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('outbox')
      .set({ state: 'cancelled', updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .execute();
  }

  async enqueueAuthorization(
    message: { manageId: string; orderId: string; authorizationId: string },
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('outbox')
      .values({
        kind: 'authorization',
        target_kind: 'manage',
        target_id: message.manageId,
        subject_id: message.authorizationId,
        payload: JSON.stringify({ orderId: message.orderId, authorizationId: message.authorizationId }),
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
}
