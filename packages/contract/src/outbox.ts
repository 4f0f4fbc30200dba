import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDeviceParameter } from './device-template.js';
import { serializationTypes, ZBreakagePolicy, ZDeviceIdentityConstraint, ZQualityParameter } from './policy.js';

/**
 * The outbox (docs/peer-network.md#the-outbox): messages to peers, delivered by a background
 * worker. `pending` waits for delivery or its next attempt, `delivered` was acknowledged by the
 * peer, `cancelled` was withdrawn before it left, `failed` was given up (attempts or time ran out).
 */
export const ZOutboxState = z.enum(['pending', 'delivered', 'cancelled', 'failed']).meta({ id: 'OutboxState' });
export type TOutboxState = z.infer<typeof ZOutboxState>;

/** What a message carries: an authorization for a downstream Manage, its revocation, or a forwarded event. */
export const ZOutboxKind = z.enum(['authorization', 'revocation', 'event']).meta({ id: 'OutboxKind' });
export type TOutboxKind = z.infer<typeof ZOutboxKind>;

/** One message as `GET /ui/admin/outbox` shows it. */
export const ZOutboxMessage = z
  .object({
    id: z.number().int(),
    messageId: z.string().nullable(),
    kind: z.string(),
    /** The registration (`manage/list` or `trace/list` id) the message goes to. */
    targetId: z.string(),
    /** What the message is about: an authorization id or an event id. */
    subjectId: z.string(),
    state: ZOutboxState,
    attempts: z.number().int(),
    /** When the next attempt is due (pending messages). */
    nextAttemptAt: z.string(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .meta({ id: 'OutboxMessage' });
export type TOutboxMessage = z.infer<typeof ZOutboxMessage>;

export const ZOutboxListQuery = ZPageQuery.extend({ state: ZOutboxState.optional() });
export type TOutboxListQuery = z.infer<typeof ZOutboxListQuery>;

/**
 * The signed `apl` of `POST /apl/peer/message`: sent under the registration both sides share,
 * with a fresh `timestamp` and `nonce` at every attempt (replays are refused) and the same
 * `messageId` every time (the receiver applies a message id once and acknowledges repeats).
 */
export const ZPeerMessageApl = z.object({
  registrationNonce: z.uuid(),
  messageId: z.uuid(),
  kind: ZOutboxKind,
  timestamp: z.string().max(40),
  nonce: z.uuid(),
  body: z.record(z.string(), z.unknown()),
});
export type TPeerMessageApl = z.infer<typeof ZPeerMessageApl>;

/** The answer: `applied` the first time a message id arrives, `duplicate` after. */
export const ZPeerMessageResponse = z
  .object({ messageId: z.string(), received: z.enum(['applied', 'duplicate']) })
  .meta({ id: 'PeerMessageResponse' });
export type TPeerMessageResponse = z.infer<typeof ZPeerMessageResponse>;

/**
 * The body of an `authorization` message: an authorization for a downstream Manage instance,
 * which becomes an order there with the order's terms narrowed as the authorization says.
 */
export const ZDelegatedAuthorization = z.object({
  authorizationId: z.uuid(),
  orderId: z.uuid(),
  orderNumber: z.string().min(1).max(256),
  companyName: z.string().max(256),
  sourceCompanyName: z.string().max(256),
  sourceDateCreated: z.string().max(40).nullable(),
  design: z.object({
    dsiId: z.uuid(),
    revisionId: z.string().max(64),
    dsiVersion: z.number().int(),
    designName: z.string().max(512),
    digestValue: z.string().max(256),
  }),
  quantity: z.number().int().positive(),
  expiration: z.string().max(40).nullable(),
  purpose: z.string().max(1024).nullable(),
  dasUrl: z.string().max(2048).nullable(),
  imageUrl: z.string().max(2048).nullable(),
  fileInformationBlockElementSize: z.number().int().nullable(),
  deviceIdentity: ZDeviceIdentityConstraint.nullable(),
  parameterVersion: z.string().max(256).nullable(),
  deviceParameters: z.array(ZDeviceParameter),
  qualityParameters: z.array(ZQualityParameter),
  breakage: z.object({ policy: ZBreakagePolicy, value: z.number().nullable() }),
  serialization: z
    .object({
      type: z.enum(serializationTypes),
      prefix: z.string().max(256).nullable(),
      first: z.number().int(),
      last: z.number().int(),
    })
    .nullable(),
  downstreamDevice: z.boolean(),
});
export type TDelegatedAuthorization = z.infer<typeof ZDelegatedAuthorization>;

/** The body of a `revocation` message: the upstream revoked this authorization. */
export const ZDelegatedRevocation = z.object({ authorizationId: z.uuid(), reason: z.string().max(1024) });
export type TDelegatedRevocation = z.infer<typeof ZDelegatedRevocation>;
