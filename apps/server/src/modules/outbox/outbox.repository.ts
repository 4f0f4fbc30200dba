import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { TOutboxKind, TOutboxListQuery, TOutboxMessage, TOutboxState, TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { pageOffset, paginate, toPage } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { OutboxTable } from '../../db/schema-licensing.js';
import { enqueueJob } from '../../jobs/jobs.service.js';

export type OutboxRow = Selectable<OutboxTable>;

/** The job that makes one delivery attempt of a message. */
export const OUTBOX_DELIVER = 'outbox.deliver';

/**
 * Runs of one attempt's job: a runner that dies mid-attempt leaves the job to another runner
 * (the receiver applies a message id once, so a second try is harmless).
 */
export const OUTBOX_JOB_RUNS = 3;

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
 * The outbox: messages to peers written in the transaction of the change they announce (with the
 * job of their first delivery attempt), delivered by `outbox.deliver` jobs; and, on the receiving
 * side, the message ids of peers already applied (`peer_messages`).
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

  /** Queues a message and the job of its first delivery attempt; answers the message id. */
  async enqueue(message: NewMessage, now: string): Promise<string> {
    const messageId = randomUUID();
    await this.db
      .insertInto('outbox')
      .values({
        kind: message.kind,
        target_kind: message.targetKind,
        target_id: message.targetId,
        subject_id: message.subjectId,
        payload: JSON.stringify(message.body),
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        created_at: now,
        updated_at: now,
        message_id: messageId,
        delivered_at: null,
        expires_at: message.expiresAt ?? null,
      })
      .execute();
    await this.scheduleAttempt(messageId, 0, new Date(now));
    return messageId;
  }

  /**
   * The job of the next attempt, at `runAt`. Its dedupe key names the attempt, so however many
   * runners record the same failure, one job carries the next attempt (`send now` adds its own).
   */
  async scheduleAttempt(messageId: string, attempts: number, runAt: Date, key = `${attempts}`): Promise<void> {
    await enqueueJob(
      this.db,
      this.dialect,
      OUTBOX_DELIVER,
      { messageId },
      { runAt, maxAttempts: OUTBOX_JOB_RUNS, dedupeKey: `${OUTBOX_DELIVER}:${messageId}:${key}` },
    );
  }

  find(messageId: string): Promise<OutboxRow | undefined> {
    return this.db.selectFrom('outbox').selectAll().where('message_id', '=', messageId).executeTakeFirst();
  }

  /** Acknowledged by the peer; false when the message was no longer in state `from` (cancelled meanwhile). */
  async markDelivered(messageId: string, attempts: number, now: string, from = 'pending'): Promise<boolean> {
    const result = await this.db
      .updateTable('outbox')
      .set({ state: 'delivered', attempts, delivered_at: now, last_error: null, updated_at: now })
      .where('message_id', '=', messageId)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A failed attempt: the error, and either the next attempt's time or `failed` (given up). */
  async recordFailure(
    messageId: string,
    change: { attempts: number; error: string; nextAttemptAt: string | null },
    now: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('outbox')
      .set({
        attempts: change.attempts,
        last_error: change.error,
        state: change.nextAttemptAt === null ? 'failed' : 'pending',
        next_attempt_at: change.nextAttemptAt ?? now,
        updated_at: now,
      })
      .where('message_id', '=', messageId)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
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
  async rememberMessage(registrationId: string, messageId: string, kind: string, now: string): Promise<boolean> {
    const seen = await this.db
      .selectFrom('peer_messages')
      .select('message_id')
      .where('registration_id', '=', registrationId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    if (seen) return false;
    // two deliveries of one message at the same moment: the primary key refuses the second
    // (a unique violation, which the caller answers as a duplicate after its rollback)
    await this.db
      .insertInto('peer_messages')
      .values({ registration_id: registrationId, message_id: messageId, kind, received_at: now })
      .execute();
    return true;
  }
}
