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
import { describeCertificate } from '../../crypto/certificates.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
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

/** Applies one kind of message from a peer, in the transaction that records its id. */
export interface MessageHandler {
  /** Who may send it: how this instance holds the sender, and (for Trace) whether the sender asked. */
  accepts(peer: ManageInstanceRow): boolean;
  apply(trx: Kysely<DB>, peer: ManageInstanceRow, body: unknown, context: MessageContext): Promise<void>;
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

  async receive(input: TAplRegistrationRequest & { aplType: PeerAplType }, sourceIp: string): Promise<TPeerMessageResponse> {
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
    const ownSigningSerial = describeCertificate((await this.credentials.identity('signing')).certificatePem).serialNumber;
    const duplicate: TPeerMessageResponse = { messageId: apl.messageId, received: 'duplicate' };
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
        await handler.apply(trx, peer, apl.body, { sourceIp, now, ownSigningSerial });
        return { messageId: apl.messageId, received: 'applied' as const };
      });
    } catch (error) {
      // the same message delivered twice at the same moment: the second one's insert lost
      if (isUniqueViolation(error)) return duplicate;
      throw error;
    }
  }
}
