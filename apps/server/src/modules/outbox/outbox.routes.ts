import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZAplRegistrationRequest,
  ZOutboxListQuery,
  ZOutboxMessage,
  ZOutboxRetryRequest,
  ZPage,
  ZPeerMessageResponse,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { peerAplTypes, type PeerAplType } from '../registrations/peer-registrations.service.js';
import type { PeerMessagesService } from './peer-messages.service.js';

/**
 * A peer message's largest body: an `eventBatch` message carries a machine's batch-signed envelope,
 * which arrived in a body of up to 8 MiB (`POST /stp/event`) and is never longer re-serialised.
 */
const PEER_MESSAGE_MAX_BYTES = 9 * 1024 * 1024;

/** `GET /ui/admin/outbox`, `POST /ui/admin/outbox/retry` and the partner entry point `POST /apl/peer/message`. */
export function outboxRoutes(messages: PeerMessagesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ui/admin/outbox',
      {
        schema: {
          tags: ['admin'],
          summary: 'Messages to peers, newest first, optionally of one state: attempts, next attempt, last error',
          querystring: ZOutboxListQuery,
          response: responses(ZPage(ZOutboxMessage)),
        },
      },
      (request) => messages.list(request.query),
    );

    app.post(
      '/ui/admin/outbox/retry',
      {
        schema: {
          tags: ['admin'],
          summary: 'Retry now: a given-up message (or one waiting for its next attempt) is tried at once; audited',
          body: ZOutboxRetryRequest,
          response: responses(ZOutboxMessage),
        },
      },
      (request) => messages.retryNow(request.body.messageId, callerOf(request)),
    );

    app.post(
      '/apl/peer/message',
      {
        bodyLimit: PEER_MESSAGE_MAX_BYTES,
        schema: {
          tags: ['partner'],
          summary:
            'A registered, approved peer delivers an outbox message (signed apl {registrationNonce, messageId, kind, timestamp, nonce, body}); a message id is applied once',
          body: ZAplRegistrationRequest,
          response: responses(ZPeerMessageResponse),
        },
      },
      (request) => {
        const input = request.body;
        if (!(peerAplTypes as readonly string[]).includes(input.aplType)) {
          throw new AppError('registrationExchangeInvalidApl', {
            field: 'aplType',
            description: `Peer messages come from ${peerAplTypes.join(', ')}`,
          });
        }
        return messages.receive(input as typeof input & { aplType: PeerAplType }, request.ip);
      },
    );
  };
}
