import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { TOutboxKind, TOutboxListQuery, TOutboxMessage, TOutboxState, TPage, TPageQuery } from '@manifold/contract';
import { type Dialect, retryOnDeadlock } from '../../db/dialect.js';
import { pageOffset, paginate, toPage } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { OutboxTable } from '../../db/schema-licensing.js';
import { afterCommit } from '../../db/database.js';
import { outboxCommitted } from './outbox-signal.js';

export type OutboxRow = Selectable<OutboxTable>;

/** Rows of one insert of {@link OutboxRepository.enqueueMany} (16 parameters each). */
const ENQUEUE_ROWS = 500;
/** Payload bytes of one insert past its first row. */
const ENQUEUE_BYTES = 4 * 1024 * 1024;

/** A queued message to a downstream Manage instance (kind `authorization` today). */
export interface Delivery {
  id: number;
  state: string;
}

/** One event of the queue, as counted over its messages. */
export interface QueuedEventRow {
  eventId: string;
  createdAt: string;
  targets: number;
  delivered: number;
  pending: number;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
}

/** A message to queue: for the registration `targetId`, about `subjectId`. */
export interface NewMessage {
  kind: TOutboxKind;
  targetKind: 'manage' | 'trace';
  targetId: string;
  subjectId: string;
  body: Record<string, unknown>;
  /** Delivery is given up after this time. */
  expiresAt?: string | null;
  /** Messages to the target with the same key go one at a time, in the order they were queued. */
  orderingKey?: string | null;
}

function toMessage(row: OutboxRow): TOutboxMessage {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    kind: row.kind,
    targetId: row.target_id,
    subjectId: row.subject_id,
    state: row.state as TOutboxState,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    expiresAt: row.expires_at,
  };
}

/** What an acknowledgement writes: `delivered`, the attempt counted, the lease and error cleared. */
function deliveredAt(now: string) {
  return (eb: ExpressionBuilder<DB, 'outbox'>) => ({
    state: 'delivered',
    attempts: eb('attempts', '+', 1),
    delivered_at: now,
    last_error: null,
    lease_owner: null,
    lease_until: null,
    updated_at: now,
  });
}

/** The latest delivery of each authorization, by authorization id. */
export async function deliveryStates(db: Kysely<DB>, authorizationIds: string[]): Promise<Map<string, string>> {
  if (authorizationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('outbox')
    .select(['subject_id', 'state'])
    .where('kind', '=', 'authorization')
    .where('subject_id', 'in', authorizationIds)
    .orderBy('id')
    .execute();
  return new Map(rows.map((row) => [row.subject_id, row.state]));
}

/**
 * The outbox: messages to peers written in the transaction of the change they announce, leased
 * and delivered by the delivery worker (`outbox-delivery.ts`), which is woken when such a
 * transaction commits; and, on the receiving side, the message ids of peers already applied
 * (`peer_messages`).
 */
export class OutboxRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

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
  /** The state of the authorization message that is pending or delivered for each of these authorizations, in one query. */
  async queuedDeliveries(authorizationIds: string[]): Promise<Map<string, Delivery['state']>> {
    if (authorizationIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('outbox')
      .select(['subject_id', 'state'])
      .where('kind', '=', 'authorization')
      .where('subject_id', 'in', [...new Set(authorizationIds)])
      .where('state', 'in', ['pending', 'delivered'])
      .execute();
    return new Map(rows.map((row) => [row.subject_id, row.state]));
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

  /** Queues a message, due now; the delivery worker is woken when the caller's transaction commits. Answers the message id. */
  async enqueue(message: NewMessage, now: string): Promise<string> {
    return (await this.enqueueMany([message], now))[0]!;
  }

  /**
   * Queues messages in multi-row inserts, due now (as {@link enqueue}); answers their message ids
   * in order. A statement takes at most {@link ENQUEUE_ROWS} rows and, past the first row,
   * {@link ENQUEUE_BYTES} of payload (forwarded events carry signed documents, a batch envelope
   * megabytes): under every driver's parameter and packet limits.
   */
  async enqueueMany(messages: NewMessage[], now: string): Promise<string[]> {
    if (messages.length === 0) return [];
    const messageIds = messages.map(() => randomUUID());
    let rows: Insertable<OutboxTable>[] = [];
    let bytes = 0;
    const insert = async () => {
      if (rows.length > 0) await this.db.insertInto('outbox').values(rows).execute();
      rows = [];
      bytes = 0;
    };
    for (const [i, message] of messages.entries()) {
      const payload = JSON.stringify(message.body);
      if (rows.length >= ENQUEUE_ROWS || (rows.length > 0 && bytes + payload.length > ENQUEUE_BYTES)) await insert();
      bytes += payload.length;
      rows.push({
        kind: message.kind,
        target_kind: message.targetKind,
        target_id: message.targetId,
        subject_id: message.subjectId,
        payload,
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        updated_at: now,
        message_id: messageIds[i]!,
        delivered_at: null,
        expires_at: message.expiresAt ?? null,
        lease_owner: null,
        lease_until: null,
        ordering_key: message.orderingKey ?? null,
      });
    }
    await insert();
    afterCommit(this.db, outboxCommitted);
    return messageIds;
  }

  /** Which of `deviceIds` were reported to which of `targets` (`trace_reported_devices`). */
  reportedDevices(targets: string[], deviceIds: string[]) {
    return this.db
      .selectFrom('trace_reported_devices')
      .select(['target_id', 'device_id'])
      .where('target_id', 'in', targets)
      .where('device_id', 'in', deviceIds)
      .execute();
  }

  /** Records machines as reported to targets; a pair recorded already (another instance's) stays as it is. */
  async recordReported(rows: { target_id: string; device_id: string; reported_at: string }[]): Promise<void> {
    if (rows.length === 0) return;
    const insert = this.db.insertInto('trace_reported_devices').values(rows);
    await (
      this.dialect.kind === 'mysql'
        ? insert.onDuplicateKeyUpdate({ reported_at: sql.ref('reported_at') })
        : insert.onConflict((conflict) => conflict.doNothing())
    ).execute();
  }

  /** One message as the admin sees it. */
  async message(messageId: string): Promise<TOutboxMessage | undefined> {
    const row = await this.find(messageId);
    return row && toMessage(row);
  }

  find(messageId: string): Promise<OutboxRow | undefined> {
    return this.db.selectFrom('outbox').selectAll().where('message_id', '=', messageId).executeTakeFirst();
  }

  /**
   * Leases up to `limit` due messages to `owner` until `leaseUntil`: pending ones whose time has
   * come and that no live lease holds (a worker that died mid-attempt leaves its lease to run
   * out), oldest due first. An attempt is counted with its outcome. `FOR UPDATE SKIP LOCKED` on PostgreSQL and MariaDB,
   * one `UPDATE … RETURNING` on SQLite: two workers never lease the same message. A message with
   * an `ordering_key` is due only when no earlier message to its target with the same key is
   * still pending (waiting, retrying or on its way): one of them at a time, in id order.
   */
  async claim(owner: string, now: string, leaseUntil: string, limit: number): Promise<OutboxRow[]> {
    if (limit < 1) return [];
    const due = (db: Kysely<DB>) =>
      db
        .selectFrom('outbox')
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .where((eb) =>
          eb.or([
            eb('outbox.ordering_key', 'is', null),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('outbox as earlier')
                  .select(sql.lit(1).as('one'))
                  .whereRef('earlier.ordering_key', '=', 'outbox.ordering_key')
                  .whereRef('earlier.target_id', '=', 'outbox.target_id')
                  .where('earlier.state', '=', 'pending')
                  .whereRef('earlier.id', '<', 'outbox.id'),
              ),
            ),
          ]),
        )
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
    const lease = { lease_owner: owner, lease_until: leaseUntil, updated_at: now };
    if (this.dialect.kind === 'sqlite') {
      return this.db.updateTable('outbox').set(lease).where('id', 'in', due(this.db).select('id')).returningAll().execute();
    }
    // READ COMMITTED: InnoDB takes no gap locks for the search, so concurrent claims on MariaDB
    // do not deadlock on the index range; a deadlock all the same rolled the claim back whole and
    // is tried again
    return retryOnDeadlock(() => this.claimLocked(due, lease));
  }

  private claimLocked(
    due: (db: Kysely<DB>) => SelectQueryBuilder<DB, 'outbox', object>,
    lease: { lease_owner: string; lease_until: string; updated_at: string },
  ): Promise<OutboxRow[]> {
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        const rows = await due(trx).selectAll().forUpdate().skipLocked().execute();
        if (rows.length === 0) return [];
        await trx
          .updateTable('outbox')
          .set(lease)
          .where(
            'id',
            'in',
            rows.map((row) => row.id),
          )
          .execute();
        return rows.map((row) => ({ ...row, ...lease }));
      });
  }

  /** Hands `owner`'s leases of these messages back, due now (the worker stopped; the delivery did not fail). */
  async release(messageIds: string[], owner: string, now: string): Promise<void> {
    if (messageIds.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set({ lease_owner: null, lease_until: null, next_attempt_at: now, updated_at: now })
      .where('message_id', 'in', messageIds)
      .where('state', '=', 'pending')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Acknowledged by the peer: the messages still pending become `delivered` in one write. Answers
   * the ids of those that were withdrawn (`cancelled`) while they were on their way.
   */
  async markDelivered(messageIds: string[], now: string): Promise<string[]> {
    if (messageIds.length === 0) return [];
    const result = await this.db
      .updateTable('outbox')
      .set(deliveredAt(now))
      .where('message_id', 'in', messageIds)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === messageIds.length) return [];
    const withdrawn = await this.db
      .selectFrom('outbox')
      .select('message_id')
      .where('message_id', 'in', messageIds)
      .where('state', '=', 'cancelled')
      .where('delivered_at', 'is', null)
      .execute();
    return withdrawn.map((row) => row.message_id!);
  }

  /** A withdrawn message the peer acknowledged all the same: `delivered` after all; false if recorded before. */
  async markWithdrawnDelivered(messageId: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('outbox')
      .set(deliveredAt(now))
      .where('message_id', '=', messageId)
      .where('state', '=', 'cancelled')
      .where('delivered_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * A failed attempt of `owner`'s lease, counted: the error, and either the next attempt's time
   * or `failed` (given up); false when the lease was no longer `owner`'s.
   */
  async recordFailure(
    messageId: string,
    owner: string,
    change: { error: string; nextAttemptAt: string | null },
    now: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('outbox')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_error: change.error,
        state: change.nextAttemptAt === null ? 'failed' : 'pending',
        next_attempt_at: change.nextAttemptAt ?? now,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
      }))
      .where('message_id', '=', messageId)
      .where('state', '=', 'pending')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * `retry now` of the admin: a failed message taken up again, or a pending one waiting for its
   * back-off, made due at once (one more attempt; its attempts are kept). Answers the message as
   * it was, or undefined when there is none with this id.
   */
  async retryNow(messageId: string, now: string): Promise<OutboxRow | undefined> {
    const row = await this.find(messageId);
    if (row && (row.state === 'failed' || row.state === 'pending')) {
      await this.db
        .updateTable('outbox')
        .set({ state: 'pending', next_attempt_at: now, updated_at: now })
        .where('message_id', '=', messageId)
        .where('state', 'in', ['pending', 'failed'])
        .execute();
      afterCommit(this.db, outboxCommitted);
    }
    return row;
  }

  /**
   * Forgets delivered and cancelled messages older than `before`, except authorizations (their
   * rows record where a licence went: a revocation and a second send read them). Answers how many.
   */
  async purgeFinished(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom('outbox')
      .where('kind', '<>', 'authorization')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'delivered'), eb('delivered_at', '<', before)]),
          eb.and([eb('state', '=', 'cancelled'), eb('updated_at', '<', before)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Forgets the peers' message ids applied before `before` (receiving side). Answers how many. */
  async forgetPeerMessages(before: string): Promise<number> {
    const result = await this.db.deleteFrom('peer_messages').where('received_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Messages about `subjectId` not yet acknowledged (pending, or failed: taken up again) made due
   * now (send now), with their ids and attempts, tried until `expiresAt`.
   */
  async hurry(subjectId: string, kind: TOutboxKind, now: string, expiresAt: string | null): Promise<OutboxRow[]> {
    const rows = await this.db
      .selectFrom('outbox')
      .selectAll()
      .where('subject_id', '=', subjectId)
      .where('kind', '=', kind)
      .where('state', 'in', ['pending', 'failed'])
      .execute();
    if (rows.length > 0) {
      const ids = rows.map((row) => row.id);
      await this.db
        .updateTable('outbox')
        .set({ state: 'pending', next_attempt_at: now, expires_at: expiresAt, updated_at: now })
        .where('id', 'in', ids)
        .where('state', 'in', ['pending', 'failed'])
        .execute();
      afterCommit(this.db, outboxCommitted);
    }
    return rows;
  }

  /** Withdraws every message about `subjectId` not yet acknowledged; answers how many. */
  async cancelSubject(subjectId: string, kind: TOutboxKind, now: string): Promise<number> {
    const result = await this.db
      .updateTable('outbox')
      .set({ state: 'cancelled', updated_at: now })
      .where('subject_id', '=', subjectId)
      .where('kind', '=', kind)
      .where('state', 'in', ['pending', 'failed'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * The event queue: events with a message not yet acknowledged (pending or failed), newest
   * first, each with its messages counted; paged in the database.
   */
  async queuedEvents(page: TPageQuery): Promise<TPage<QueuedEventRow>> {
    const waiting = sql<number>`sum(case when state in ('pending', 'failed') then 1 else 0 end)`;
    const grouped = this.db
      .selectFrom('outbox')
      .where('kind', '=', 'event')
      .where('state', '<>', 'cancelled')
      .groupBy('subject_id')
      .having(waiting, '>', 0);
    const total = await this.db
      .selectFrom(grouped.select('subject_id').as('queued'))
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await grouped
      .select((eb) => [
        'subject_id',
        eb.fn.min('id').as('first_id'),
        eb.fn.min('created_at').as('created_at'),
        eb.fn.countAll().as('targets'),
        sql<number>`sum(case when state = 'delivered' then 1 else 0 end)`.as('delivered'),
        sql<number>`sum(case when state = 'pending' then 1 else 0 end)`.as('pending'),
        eb.fn.max('attempts').as('attempts'),
        sql<string | null>`min(case when state = 'pending' then next_attempt_at end)`.as('next_attempt_at'),
        eb.fn.max('last_error').as('last_error'),
      ])
      .orderBy('first_id', 'desc')
      .limit(page.numberOfItems)
      .offset(pageOffset(page))
      .execute();
    return toPage(
      page,
      total.n,
      rows.map((row) => ({
        eventId: row.subject_id,
        createdAt: String(row.created_at),
        targets: Number(row.targets),
        delivered: Number(row.delivered),
        pending: Number(row.pending),
        attempts: Number(row.attempts),
        nextAttemptAt: row.next_attempt_at,
        lastError: row.last_error as string | null,
      })),
    );
  }

  /** Messages newest first, optionally of one state, paged in the database. */
  list(query: TOutboxListQuery): Promise<TPage<TOutboxMessage>> {
    let base = this.db.selectFrom('outbox');
    if (query.state) base = base.where('state', '=', query.state);
    return paginate(
      base,
      query,
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      (rows) => rows.map(toMessage),
    );
  }

  /**
   * Records on the receiving side that the peer's message was applied (in the transaction that
   * applies it); false when it was applied before.
   */
  async hasMessage(registrationId: string, messageId: string): Promise<boolean> {
    const seen = await this.db
      .selectFrom('peer_messages')
      .select('message_id')
      .where('registration_id', '=', registrationId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return seen !== undefined;
  }

  async rememberMessage(registrationId: string, messageId: string, kind: string, now: string): Promise<boolean> {
    if (await this.hasMessage(registrationId, messageId)) return false;
    // two deliveries of one message at the same moment: the primary key refuses the second
    // (a unique violation, which the caller answers as a duplicate after its rollback)
    await this.db
      .insertInto('peer_messages')
      .values({ registration_id: registrationId, message_id: messageId, kind, received_at: now })
      .execute();
    return true;
  }
}
