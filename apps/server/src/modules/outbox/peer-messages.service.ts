import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import {
  type TAplRegistrationRequest,
  type TOutboxKind,
  type TOutboxListQuery,
  type TOutboxMessage,
  type TPage,
  type TPeerMessageResponse,
  ZPeerMessageApl,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { AuthorizationsRepository } from '../licensing/authorizations.repository.js';
import { isoNow } from '../../lib/time.js';
import type { FilePath } from '../../peers/registration.client.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { parseApl } from '../registrations/apl-checks.js';
import type { PeerAplType, PeerRegistrationsService } from '../registrations/peer-registrations.service.js';
import { OutboxRepository } from './outbox.repository.js';

/** What a handler gets besides the message: read before the transaction (SQLite runs one at a time on its connection). */
export interface MessageContext {
  sourceIp: string;
  now: string;
  /** Serial number of this instance's signing certificate (the licensee key of what it receives). */
  ownSigningSerial: string;
}

/** A file part that came after a message; read it to its end before asking for the next. */
export interface IncomingFile {
  fileName: string | undefined;
  stream: Readable;
}

/** The file parts of a form, one at a time (undefined after the last). */
export interface IncomingFiles {
  next(): Promise<IncomingFile | undefined>;
}

/**
 * Files a handler stored before its transaction: `value` goes to `apply`; `done` runs after the
 * transaction (`applied` false: rolled back or a duplicate) and removes what no row refers to.
 */
export interface StoredFiles {
  value: unknown;
  done(applied: boolean): Promise<void>;
}

/** Applies one kind of message from a peer, in the transaction that records its id. */
export interface MessageHandler {
  /** Who may send it: how this instance holds the sender, and (for Trace) whether the sender asked. */
  accepts(peer: ManageInstanceRow): boolean;
  /** Kinds that come with files: where they arrive, and how the files are stored before the transaction. */
  files?: {
    path: FilePath;
    store(peer: ManageInstanceRow, body: unknown, files: IncomingFiles): Promise<StoredFiles>;
  };
  apply(trx: Kysely<DB>, peer: ManageInstanceRow, body: unknown, context: MessageContext, stored?: unknown): Promise<void>;
}

/**
 * The outbox seen from both ends: the admin's view of this instance's messages, and
 * `POST /apl/peer/message`, where a registered, approved peer delivers one — authenticated like a
 * registration notice (signature by its registered key, timestamp, nonce), applied at most once
 * per message id (a repeat is acknowledged as `duplicate`).
 */
export class PeerMessagesService {
  constructor(
    private readonly database: Database,
    private readonly registrations: PeerRegistrationsService,
    private readonly credentials: ServerCredentials,
    private readonly handlers: Partial<Record<TOutboxKind, MessageHandler>>,
  ) {}

  list(query: TOutboxListQuery): Promise<TPage<TOutboxMessage>> {
    return new OutboxRepository(this.database.db, this.database.dialect).list(query);
  }

  /**
   * `POST /ui/admin/outbox/retry`: a given-up message taken up again, or a pending one waiting
   * for its back-off, made due now (the delivery worker is woken at commit); audited.
   * `entityDoesNotExist` for an unknown id, `outboxMessageNotRetryable` for a delivered or
   * withdrawn one, or an authorization revoked since. Answers the message as it is now.
   */
  async retryNow(messageId: string, caller: Caller): Promise<TOutboxMessage> {
    return this.database.transaction(async (trx) => {
      const outbox = new OutboxRepository(trx, this.database.dialect);
      const before = await outbox.retryNow(messageId, isoNow());
      if (!before) throw new AppError('entityDoesNotExist', { field: 'messageId' });
      if (before.state !== 'failed' && before.state !== 'pending') {
        throw new AppError('outboxMessageNotRetryable', {
          field: 'messageId',
          description: `The message is ${before.state}`,
        });
      }
      // a revoked licence's revocation has gone (or is going) to the peer: its authorization must not follow it
      if (
        before.kind === 'authorization' &&
        (await new AuthorizationsRepository(trx).find(before.subject_id))?.state === 'revoked'
      ) {
        throw new AppError('outboxMessageNotRetryable', {
          field: 'messageId',
          description: 'The authorization was revoked since',
        });
      }
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'outboxMessageRetried', messageId, {
        kind: before.kind,
        targetId: before.target_id,
        subjectId: before.subject_id,
        state: before.state,
        attempts: before.attempts,
      });
      return (await outbox.message(messageId))!;
    });
  }

  /**
   * A message from a peer; `arrival` names the form and its files when it came to `/mpf/design` or
   * `/mpf/dtl` (a kind with files is taken only there, every other kind only without).
   */
  async receive(
    input: TAplRegistrationRequest & { aplType: PeerAplType },
    sourceIp: string,
    arrival?: { path: FilePath; files: IncomingFiles },
  ): Promise<TPeerMessageResponse> {
    const apl = parseApl(ZPeerMessageApl, input.apl);
    const peer = await this.registrations.authenticate(input, apl);
    if (peer.registration_state !== 'Approved') {
      throw new AppError('registrationNotApproved', {
        field: 'apl.registrationNonce',
        description: `The registration is ${peer.registration_state}`,
      });
    }
    const handler = this.handlers[apl.kind];
    if (!handler?.accepts(peer)) {
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'apl.kind',
        description: `Messages of kind ${apl.kind} are not taken from this peer`,
      });
    }
    if (handler.files?.path !== arrival?.path) {
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'apl.kind',
        description: handler.files
          ? `Messages of kind ${apl.kind} come with their files to ${handler.files.path}`
          : `Messages of kind ${apl.kind} go to /apl/peer/message`,
      });
    }
    const ownSigningSerial = await this.credentials.signingSerial();
    const duplicate: TPeerMessageResponse = { messageId: apl.messageId, received: 'duplicate' };
    const outbox = new OutboxRepository(this.database.db, this.database.dialect);
    if (handler.files && (await outbox.hasMessage(peer.id, apl.messageId))) return duplicate;
    const stored = handler.files && arrival ? await handler.files.store(peer, apl.body, arrival.files) : undefined;
    let applied = false;
    try {
      return await this.database.transaction(async (trx) => {
        const now = isoNow();
        await this.registrations.rememberNonce(trx, peer.id, apl.nonce);
        const first = await new OutboxRepository(trx, this.database.dialect).rememberMessage(
          peer.id,
          apl.messageId,
          apl.kind,
          now,
        );
        if (!first) return duplicate;
        await handler.apply(trx, peer, apl.body, { sourceIp, now, ownSigningSerial }, stored?.value);
        applied = true;
        return { messageId: apl.messageId, received: 'applied' as const };
      });
    } catch (error) {
      applied = false;
      if (!isUniqueViolation(error)) throw error;
      // the same message delivered twice at the same moment: the second one's insert lost
      if (await outbox.hasMessage(peer.id, apl.messageId)) return duplicate;
      // a write of the handler met a change made at the same time: nothing was applied, the peer sends it again
      throw new AppError('registrationExchangeInvalidRegistration', {
        field: 'apl.messageId',
        description: 'The message met a change made at the same time and was not applied; send it again',
      });
    } finally {
      if (stored) await stored.done(applied);
    }
  }
}
