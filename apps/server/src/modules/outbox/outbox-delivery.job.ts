import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type TOutboxKind, type TPeerMessageApl, ZPeerMessageResponse } from '@manifold/contract';
import type { OutboxConfig } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { JobDefinition } from '../../jobs/job-runner.js';
import { errorText, retryDelayMs } from '../../jobs/job-timing.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl, type PeerHttpConfig } from '../../peers/http-client.js';
import { postApl } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { signApl } from '../registrations/apl-checks.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';
import { type PeerRelation, sentAplType } from '../registrations/peer-registrations.service.js';
import { OutboxRepository, type OutboxRow } from './outbox.repository.js';

const ZDeliverPayload = z.object({ messageId: z.uuid() });
type DeliverPayload = z.infer<typeof ZDeliverPayload>;

/** Answers of the peer that no retry can change: the registration is gone there. */
const final = new Set(['registrationNotPresent', 'registrationHasBeenCanceled']);

/** A failure that ends the message's delivery (`failed`) at once. */
class GiveUp extends Error {}

/** What to do when a message was acknowledged after it had been withdrawn here (revoked meanwhile). */
export type AfterLateDelivery = (row: OutboxRow, trx: Kysely<DB>, now: string) => Promise<void>;

/**
 * One delivery attempt of an outbox message (job `outbox.deliver`, payload `{messageId}`): the
 * message is signed for the registration it goes to (fresh timestamp and nonce) and posted to
 * the peer's `/apl/peer/message` through the safe client (its timeouts and size limits). An
 * acknowledgement marks it `delivered`; a failure is recorded on the message (attempts, last
 * error) and the next attempt is scheduled as a new job after an exponential back-off with
 * jitter; after `maxAttempts`, past its `expires_at`, or when the registration is gone, it is
 * `failed`. A registration not approved (suspended) is retried like an unreachable peer.
 */
export function outboxDeliveryJob(
  database: Database,
  credentials: ServerCredentials,
  http: PeerHttpConfig,
  config: OutboxConfig,
  afterLateDelivery: Partial<Record<TOutboxKind, AfterLateDelivery>> = {},
  random: () => number = Math.random,
): JobDefinition<DeliverPayload> {
  const outbox = new OutboxRepository(database.db, database.dialect);
  return {
    payload: ZDeliverPayload,
    async run({ messageId }) {
      const row = await outbox.find(messageId);
      if (!row || row.state !== 'pending') return;
      const attempts = row.attempts + 1;
      try {
        if (row.expires_at && row.expires_at <= isoNow()) throw new GiveUp('The time allowed for its delivery ran out');
        const peer = await new PeerRegistrationsRepository(database.db).find(row.target_id, [
          'upStreamManage',
          'downStreamManage',
          'trace',
        ]);
        if (!peer?.registration_nonce || peer.registration_state === 'Cancelled')
          throw new GiveUp('The registration it was meant for no longer exists');
        if (peer.registration_state !== 'Approved') throw new Error(`The registration is ${peer.registration_state}`);
        const apl: TPeerMessageApl = {
          registrationNonce: peer.registration_nonce,
          messageId,
          kind: row.kind as TOutboxKind,
          timestamp: isoNow(),
          nonce: randomUUID(),
          body: JSON.parse(row.payload) as Record<string, unknown>,
        };
        const signed = await signApl(credentials, sentAplType[peer.manage_type as PeerRelation], apl);
        const answer = ZPeerMessageResponse.safeParse(
          await postApl(http, parsePeerUrl(peer.manage_url, http.allowedHosts), '/apl/peer/message', signed),
        );
        if (!answer.success || answer.data.messageId !== messageId) throw new Error('The peer did not acknowledge the message');
      } catch (error) {
        const giveUp =
          error instanceof GiveUp || (error instanceof AppError && final.has(error.token)) || attempts >= config.maxAttempts;
        const text = errorText(error instanceof AppError ? `${error.token}: ${error.message}` : error);
        const next = giveUp
          ? null
          : new Date(Date.now() + retryDelayMs(attempts, { baseMs: config.retryBaseMs, maxMs: config.retryMaxMs }, random));
        await database.transaction(async (trx) => {
          const changes = new OutboxRepository(trx, database.dialect);
          const recorded = await changes.recordFailure(
            messageId,
            { attempts, error: text, nextAttemptAt: next ? isoNow(next) : null },
            isoNow(),
          );
          if (recorded && next) await changes.scheduleAttempt(messageId, attempts, next);
        });
        return;
      }
      const now = isoNow();
      if (await outbox.markDelivered(messageId, attempts, now)) return;
      // withdrawn while it was on its way: the peer has it, so it must hear of the withdrawal
      const late = afterLateDelivery[row.kind as TOutboxKind];
      if (late) {
        await database.transaction(async (trx) => {
          const changes = new OutboxRepository(trx, database.dialect);
          if (await changes.markDelivered(messageId, attempts, now, 'cancelled')) await late(row, trx, now);
        });
      }
    },
  };
}
