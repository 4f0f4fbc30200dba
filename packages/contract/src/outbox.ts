import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDeviceParameter } from './device-template.js';
import { ZId } from './identifiers.js';
import { ZEventHash, ZForwardedEventProof, ZTraceEventBatchProof, ZTraceEventBody } from './trace.js';
import { serializationTypes, ZBreakagePolicy, ZDeviceIdentityConstraint, ZQualityParameter } from './policy.js';

/**
 * The outbox (docs/peer-network.md#the-outbox): messages to peers, delivered by a background
 * worker. `pending` waits for delivery or its next attempt, `delivered` was acknowledged by the
 * peer, `cancelled` was withdrawn before it left, `failed` was given up (attempts or time ran out).
 */
export const ZOutboxState = z.enum(['pending', 'delivered', 'cancelled', 'failed']).meta({ id: 'OutboxState' });
export type TOutboxState = z.infer<typeof ZOutboxState>;

/**
 * What a message carries: an authorization for a downstream Manage, its revocation, a forwarded
 * event, a design revision (`das/transfer`) or a machine data record (`dtl/transfer`); the last
 * two travel with their files to `/mpf/design` and `/mpf/dtl`. For a Trace instance also: an
 * approved machine (`device`, its identity and signing certificate) and the envelope of a
 * batch-signed event (`eventBatch`), so the Trace can hand out a history that checks offline.
 */
export const ZOutboxKind = z
  .enum(['authorization', 'revocation', 'event', 'design', 'machineData', 'device', 'eventBatch'])
  .meta({ id: 'OutboxKind' });
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

/** Tokens of the outbox's admin calls. */
export const outboxErrorTokens = {
  outboxMessageNotRetryable: 'Only a message given up or waiting for its next attempt can be tried now',
} as const;

/** `POST /ui/admin/outbox/retry`: a given-up (or waiting) message tried now. */
export const ZOutboxRetryRequest = z.object({ messageId: ZId('entityDoesNotExist') }).meta({ id: 'OutboxRetryRequest' });
export type TOutboxRetryRequest = z.infer<typeof ZOutboxRetryRequest>;

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

/** `GET /ui/admin/event`: whether events are forwarded to the Trace instances, and for how long each is tried (seconds). */
export const ZEventConfiguration = z
  .object({ enabled: z.boolean(), timeout: z.number().int() })
  .meta({ id: 'EventConfiguration' });
export type TEventConfiguration = z.infer<typeof ZEventConfiguration>;

/** `POST /ui/admin/event`: a null or absent field leaves its value unchanged. */
export const ZEventConfigurationUpdate = z
  .object({
    enabled: z.boolean().nullable().optional(),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(365 * 86_400)
      .nullable()
      .optional(),
  })
  .meta({ id: 'EventConfigurationUpdate' });
export type TEventConfigurationUpdate = z.infer<typeof ZEventConfigurationUpdate>;

/** One event in the queue: its messages to the Trace instances that have not all been acknowledged. */
export const ZQueuedEvent = z
  .object({
    id: z.string(),
    eventId: z.string(),
    kind: z.string(),
    deviceId: z.string(),
    occurredAt: z.string(),
    /** `pending` while a delivery is still tried, `failed` when every one left was given up. */
    state: z.enum(['pending', 'failed']),
    /** Trace instances the event goes to, and how many acknowledged it. */
    targets: z.number().int(),
    delivered: z.number().int(),
    /** Most attempts of one delivery. */
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastError: z.string().nullable(),
    dateCreated: z.string(),
  })
  .meta({ id: 'QueuedEvent' });
export type TQueuedEvent = z.infer<typeof ZQueuedEvent>;

export const ZQueueEventRequest = z.object({ eventId: ZId('traceEventIdNotValid') }).meta({ id: 'QueueEventRequest' });
export const ZQueueDownloadQuery = z.object({ traceEventId: ZId('traceEventIdNotValid') });

/** The body of an `event` message: an event as stored where it was reported, for a Trace instance to store like its own. */
export const ZForwardedEvent = z.object({
  deviceId: z.string().min(1).max(64),
  body: ZTraceEventBody,
  eventHash: ZEventHash,
  orderId: z.string().max(64).nullable(),
  dsiId: z.string().max(64).nullable(),
  proof: ZForwardedEventProof,
  receivedAt: z.string().max(40),
});
export type TForwardedEvent = z.infer<typeof ZForwardedEvent>;

/**
 * The body of a `device` message: a machine the reporting instance approved (spec §4: "Device
 * approval is reported to Trace"), with the certificate its events are signed with.
 */
export const ZReportedDevice = z.object({
  deviceId: z.string().min(1).max(64),
  // as long as a machine's registration allows (ZDeviceIdentity)
  name: z.string().max(256),
  serialNumber: z.string().max(255),
  model: z.string().max(256),
  manufacturer: z.string().max(256),
  /** PEM: the machine's signing certificate (its chain may follow). */
  signingCertificate: z
    .string()
    .min(1)
    .max(64 * 1024),
});
export type TReportedDevice = z.infer<typeof ZReportedDevice>;

/** The body of an `eventBatch` message: a batch-signed envelope its forwarded events name, under its id. */
export const ZForwardedEventBatch = ZTraceEventBatchProof;
export type TForwardedEventBatch = z.infer<typeof ZForwardedEventBatch>;
