import { type KeyObject, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type TOutboxKind, type TPeerMessageApl, ZPeerMessageResponse } from '@manifold/contract';
import type { OutboxConfig } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { takeOverDeadLeases } from '../../jobs/dead-leases.js';
import type { BackgroundWorker, JobLog } from '../../jobs/job-runner.js';
import { errorText, retryDelayMs } from '../../jobs/job-timing.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl, type PeerHttpConfig } from '../../peers/http-client.js';
import type { FormFile } from '../../peers/multipart-body.js';
import { type FilePath, PeerRefusal, postApl, postAplWithFiles } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { signAplWith } from '../registrations/apl-checks.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';
import { type PeerRelation, sentAplType } from '../registrations/peer-registrations.service.js';
import { onOutboxCommitted } from './outbox-signal.js';
import { OutboxRepository, type OutboxRow } from './outbox.repository.js';

/** Answers of the peer that no retry can change: the registration is gone there. */
const final = new Set(['registrationNotPresent', 'registrationHasBeenCanceled']);

/**
 * Refusals of the message itself that no retry changes (a kind or body the peer does not take, a
 * machine reported with another certificate, an event id it holds with other content): final for
 * a message of an ordering key, which would otherwise hold the messages behind it until given up.
 * A stale timestamp (clocks apart) is not final.
 */
const finalWhenOrdered = new Set([
  'registrationExchangeInvalidApl',
  'registrationExchangeAlreadyRegistered',
  'traceEventIdNotValid',
]);
const refusedForGood = (row: OutboxRow, error: unknown) =>
  row.ordering_key !== null &&
  error instanceof PeerRefusal &&
  finalWhenOrdered.has(error.token) &&
  error.peerField !== 'apl.timestamp';

/** The signing key opened once for a batch of messages. */
interface SigningKey {
  privateKeyPem: KeyObject;
  certificatePem: string;
}

/** A failure that ends the message's delivery (`failed`) at once. */
export class GiveUp extends Error {}

/** What to do when a message was acknowledged after it had been withdrawn here (revoked meanwhile). */
export type AfterLateDelivery = (row: OutboxRow, trx: Kysely<DB>, now: string) => Promise<void>;

/**
 * A kind of message that travels with files (a design revision, a machine data record): at each
 * attempt its body is made for the peer it goes to (content keys wrapped for the peer's
 * encryption certificate) and its files are streamed after the signed message to `path`.
 */
export interface FileCarrier {
  path: FilePath;
  prepare(row: OutboxRow, peer: ManageInstanceRow): Promise<{ body: Record<string, unknown>; files: FormFile[] }>;
}

export interface OutboxDeliveryOptions {
  /** Names this worker's leases (the job runner's owner). */
  owner: string;
  /** Looks for messages other processes committed this often, ms (`JOBS_POLL_MS`). */
  pollIntervalMs: number;
  /** How long a lease lasts, s: more than one attempt can take (connect + read timeout). */
  leaseSeconds: number;
  /** How long `stop` waits for the attempts on their way, ms. */
  stopTimeoutMs: number;
  log: JobLog;
  random?: () => number;
}

/**
 * The outbox's delivery worker (docs/peer-network.md#the-outbox). Woken in this process when a
 * transaction that queued a message commits, and every `pollIntervalMs` for messages other
 * processes on the same database committed, it leases due messages in batches (as many as it
 * has free delivery slots), signs each for the registration it goes to (fresh timestamp and
 * nonce) and posts it to the peer's `/apl/peer/message` through the safe client (allow-list,
 * timeouts, size limits, kept-alive connections), at most `concurrency` at a time and
 * `peerConcurrency` per peer. Acknowledgements are written together (one UPDATE for all that
 * arrived meanwhile); a failure is recorded on the message (attempts, last error) with its next
 * attempt after an exponential back-off with jitter; after `maxAttempts`, past its `expires_at`,
 * or when the registration is gone, it is `failed`. A registration not approved (suspended) is
 * retried like an unreachable peer. A worker that dies mid-attempt leaves its leases to run out;
 * the receiver applies a message id once, so the second attempt is harmless.
 */
export class OutboxDelivery implements BackgroundWorker {
  private readonly random: () => number;
  private started = false;
  private ticking = false;
  private tickAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Leased messages not yet finished, by message id (waiting for their peer's turn or on their way). */
  private readonly leased = new Map<string, Promise<void>>();
  private readonly perPeer = new Map<string, { active: number; waiting: (() => void)[] }>();
  private acknowledgements: OutboxRow[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    private readonly credentials: ServerCredentials,
    private readonly http: PeerHttpConfig,
    private readonly config: OutboxConfig,
    private readonly options: OutboxDeliveryOptions,
    private readonly afterLateDelivery: Partial<Record<TOutboxKind, AfterLateDelivery>> = {},
    private readonly carriers: Partial<Record<TOutboxKind, FileCarrier>> = {},
  ) {
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe = onOutboxCommitted(() => this.wake());
    // a restart takes up at once the messages its previous run had on their way
    void this.expireDeadLeases().finally(() => this.wake());
  }

  /** Lets the leases of this machine's dead workers run out now (jobs/lease-owner.ts): at start and with the runner's heartbeat. */
  expireDeadLeases(): Promise<void> {
    return takeOverDeadLeases(this.database.db, 'outbox', new Date(), this.options);
  }

  /** Stops leasing, waits up to `stopTimeoutMs` for the attempts on their way, hands the other leases back. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.leased.values()]),
      new Promise((resolve) => (timeout = setTimeout(resolve, this.options.stopTimeoutMs))),
    ]);
    clearTimeout(timeout);
    await this.flushed();
    const left = [...this.leased.keys()];
    if (left.length === 0) return;
    try {
      await this.repository().release(left, this.options.owner, isoNow());
    } catch (error) {
      this.options.log.error(
        `outbox delivery ${this.options.owner} could not release ${left.length} leases: ${errorText(error)}`,
      );
    }
  }

  /** Leases and delivers due messages until none is left; answers how many attempts were made. For tests and tools. */
  async runDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const rows = await this.lease(this.config.concurrency);
      if (rows.length === 0) break;
      await this.launch(rows);
      attempts += rows.length;
      // the next message of an ordering key is due once its predecessor's acknowledgement is written
      await this.flushed();
    }
    await this.flushed();
    return attempts;
  }

  /** Looks for due messages now (a commit here, a finished delivery, or the poll interval passed). */
  private wake(): void {
    if (!this.started) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    clearTimeout(this.timer);
    void this.tick().finally(() => {
      this.ticking = false;
      if (!this.started) return;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.options.pollIntervalMs);
        this.timer.unref();
      }
    });
  }

  private async tick(): Promise<void> {
    try {
      const free = this.config.concurrency - this.leased.size;
      if (free <= 0) return;
      const rows = await this.lease(free);
      // a full batch: there may be more, taken when slots free up
      void this.launch(rows, () => {
        if (this.config.concurrency - this.leased.size >= Math.max(1, this.config.concurrency / 4)) this.wake();
      });
    } catch (error) {
      this.options.log.error(`outbox delivery ${this.options.owner}: looking for messages failed: ${errorText(error)}`);
    }
  }

  private lease(limit: number): Promise<OutboxRow[]> {
    const now = new Date();
    const until = new Date(now.getTime() + this.options.leaseSeconds * 1000);
    return this.repository().claim(this.options.owner, isoNow(now), isoNow(until), limit);
  }

  /** Delivers leased messages: the registrations and the signing identity read once for the batch. */
  private async launch(rows: OutboxRow[], finished?: () => void): Promise<void> {
    if (rows.length === 0) return;
    let peers: Map<string, ManageInstanceRow>;
    let identity: SigningKey;
    const attempts: Promise<void>[] = [];
    try {
      peers = await new PeerRegistrationsRepository(this.database.db).findMany(
        [...new Set(rows.map((row) => row.target_id))],
        ['upStreamManage', 'downStreamManage', 'trace'],
      );
      const { privateKey, certificatePem } = await this.credentials.signingIdentity();
      identity = { privateKeyPem: privateKey, certificatePem };
    } catch (error) {
      for (const row of rows) attempts.push(this.failed(row, error));
      await Promise.all(attempts);
      return;
    }
    for (const row of rows) {
      const attempt = this.inTurn(row.target_id, () => this.attempt(row, peers.get(row.target_id), identity)).finally(() => {
        this.leased.delete(row.message_id!);
        finished?.();
      });
      this.leased.set(row.message_id!, attempt);
      attempts.push(attempt);
    }
    await Promise.all(attempts);
  }

  /** Runs `work` when the peer has a free slot (at most `peerConcurrency` attempts per peer at once). */
  private async inTurn(peerId: string, work: () => Promise<void>): Promise<void> {
    let slots = this.perPeer.get(peerId);
    if (!slots) this.perPeer.set(peerId, (slots = { active: 0, waiting: [] }));
    if (slots.active >= this.config.peerConcurrency) await new Promise<void>((resolve) => slots.waiting.push(resolve));
    slots.active += 1;
    try {
      await work();
    } finally {
      slots.active -= 1;
      const next = slots.waiting.shift();
      if (next) next();
      else if (slots.active === 0) this.perPeer.delete(peerId);
    }
  }

  /** One delivery attempt; never rejects. */
  private async attempt(row: OutboxRow, peer: ManageInstanceRow | undefined, identity: SigningKey): Promise<void> {
    const messageId = row.message_id!;
    try {
      if (row.expires_at && row.expires_at <= isoNow()) throw new GiveUp('The time allowed for its delivery ran out');
      if (!peer?.registration_nonce || peer.registration_state === 'Cancelled')
        throw new GiveUp('The registration it was meant for no longer exists');
      if (peer.registration_state !== 'Approved') throw new Error(`The registration is ${peer.registration_state}`);
      const carrier = this.carriers[row.kind as TOutboxKind];
      const prepared = carrier ? await carrier.prepare(row, peer) : undefined;
      const apl: TPeerMessageApl = {
        registrationNonce: peer.registration_nonce,
        messageId,
        kind: row.kind as TOutboxKind,
        timestamp: isoNow(),
        nonce: randomUUID(),
        body: prepared?.body ?? (JSON.parse(row.payload) as Record<string, unknown>),
      };
      const signed = await signAplWith(identity, sentAplType[peer.manage_type as PeerRelation], apl);
      const peerUrl = parsePeerUrl(peer.manage_url, this.http.allowedHosts);
      const answer = ZPeerMessageResponse.safeParse(
        carrier && prepared
          ? await postAplWithFiles(this.http, peerUrl, carrier.path, signed, prepared.files)
          : await postApl(this.http, peerUrl, '/apl/peer/message', signed),
      );
      if (!answer.success || answer.data.messageId !== messageId) throw new Error('The peer did not acknowledge the message');
    } catch (error) {
      await this.failed(row, error);
      return;
    }
    // the slot is free at once; the acknowledgement is written with the others that arrive meanwhile
    this.acknowledge(row);
  }

  /** Records a failed attempt: the next one after the back-off, or `failed`. */
  private async failed(row: OutboxRow, error: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    const giveUp =
      error instanceof GiveUp ||
      (error instanceof AppError && final.has(error.token)) ||
      refusedForGood(row, error) ||
      attempts >= this.config.maxAttempts;
    const text = errorText(error instanceof AppError ? `${error.token}: ${error.message}` : error);
    const next = giveUp
      ? null
      : new Date(
          Date.now() + retryDelayMs(attempts, { baseMs: this.config.retryBaseMs, maxMs: this.config.retryMaxMs }, this.random),
        );
    try {
      await this.repository().recordFailure(
        row.message_id!,
        this.options.owner,
        { error: text, nextAttemptAt: next ? isoNow(next) : null },
        isoNow(),
      );
    } catch (failure) {
      // the lease runs out and the message is tried again
      this.options.log.error(`outbox delivery: recording the failure of ${row.message_id} failed: ${errorText(failure)}`);
    }
  }

  private acknowledge(row: OutboxRow): void {
    this.acknowledgements.push(row);
    this.flush();
  }

  /** Until the acknowledgements received so far are written. */
  private async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Writes the acknowledgements that arrived, in one UPDATE per round, until none is left. */
  private flush(): void {
    if (this.flushing) return;
    let ordered = false;
    this.flushing = (async () => {
      while (this.acknowledgements.length > 0) {
        const batch = this.acknowledgements.splice(0);
        ordered ||= batch.some((row) => row.ordering_key !== null);
        try {
          await this.recordDelivered(batch);
        } catch (error) {
          // their leases run out and they are sent again: the peer acknowledges a duplicate
          this.options.log.error(`outbox delivery: recording ${batch.length} acknowledgements failed: ${errorText(error)}`);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.acknowledgements.length > 0) this.flush();
      // a message waiting for its predecessor (the same ordering key) is due now
      else if (ordered) this.wake();
    });
  }

  private async recordDelivered(rows: OutboxRow[]): Promise<void> {
    const now = isoNow();
    const withdrawn = await this.repository().markDelivered(
      rows.map((row) => row.message_id!),
      now,
    );
    // withdrawn while on their way: the peer has them, so it must hear of the withdrawal
    for (const messageId of withdrawn) {
      const row = rows.find((entry) => entry.message_id === messageId)!;
      const late = this.afterLateDelivery[row.kind as TOutboxKind];
      if (!late) continue;
      await this.database.transaction(async (trx) => {
        if (await new OutboxRepository(trx, this.database.dialect).markWithdrawnDelivered(messageId, now))
          await late(row, trx, now);
      });
    }
  }

  private repository(): OutboxRepository {
    return new OutboxRepository(this.database.db, this.database.dialect);
  }
}
