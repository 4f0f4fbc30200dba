import { z } from 'zod';
import { ZAuthorizationId, ZDeviceId, ZDsiId, ZId, ZOrderId } from './identifiers.js';
import { ZPage, ZPageQuery } from './common.js';
import { ZDeviceParameter } from './device-template.js';
import { ZBreakagePolicy, ZDeviceIdentityConstraint, ZQualityParameter } from './policy.js';

/**
 * Orders and authorizations (spec §3 Order, Authorization list entry, Authorize request, Machine
 * data licence; §7 Orders, authorizations; STP). Ids are UUIDs. Times are ISO-8601 UTC strings,
 * except the authorize request's `expiration`, which the spec makes an integer: epoch
 * MILLISECONDS (as JavaScript's `Date.now()`).
 */

const page = ZPageQuery.shape;

export const orderSortFields = ['orderId', 'userId', 'companyName', 'dateCreated'] as const;

/** Spec §7/§9: sort, filters and paging of `order/list` (default orderId ascending, not archived). */
export const ZOrderListQuery = z.object({
  ...page,
  sortBy: z.enum(orderSortFields).default('orderId'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
  /** Exact dsiId. */
  filterByDsiId: ZDsiId.optional(),
  /** Exact company name (as the order names it). */
  filterByCompanyName: z.string().max(256).optional(),
  /** Exact userID (the username that added the order, or the sender of a partner order). */
  filterByUserId: z.string().max(128).optional(),
  filterByArchived: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .default(false),
});
export type TOrderListQuery = z.infer<typeof ZOrderListQuery>;

export const ZAuthorizationListQuery = ZOrderListQuery.extend({
  orderId: ZOrderId.optional(),
  authorizationId: ZAuthorizationId.optional(),
});
export type TAuthorizationListQuery = z.infer<typeof ZAuthorizationListQuery>;

export const ZSerialization = z
  /** `type` is Dec or Hex for every order accepted here; any other value makes authorize answer serializationHasError. */
  .object({ type: z.string(), prefix: z.string(), start: z.number().int(), end: z.number().int(), next: z.number().int() })
  .meta({ id: 'Serialization' });

export const ZOrder = z
  .object({
    orderIdentity: z.object({ orderId: z.string(), authorizationId: z.string().nullable() }),
    orderId: z.string(),
    version: z.number().int(),
    dateCreated: z.string(),
    companyName: z.string(),
    /** The local user who added it (users' numeric id); null for partner orders. */
    manageUserId: z.number().int().nullable(),
    dasUrl: z.string().nullable(),
    dsi: z.object({ dsiId: z.string(), dsiVersion: z.number().int(), revisionId: z.string(), designName: z.string() }),
    quantity: z.number().int(),
    /** Quantity lost to expired authorizations (never to be handed out again). */
    expiredQuantity: z.number().int(),
    /** Quantity held by live authorizations. */
    allocatedQuantity: z.number().int(),
    /** quantity − allocated − expired. */
    remainingQuantity: z.number().int(),
    purpose: z.string().nullable(),
    licenseeKeySN: z.string(),
    digestMethod: z.literal('SHA-256'),
    digestValue: z.string(),
    sourceDateCreated: z.string().nullable(),
    sourceCompanyName: z.string(),
    deviceIdentity: ZDeviceIdentityConstraint.nullable(),
    parameterVersion: z.string().nullable(),
    imageUrl: z.string().nullable(),
    fileInformationBlockElementSize: z.number().int().nullable(),
    authorizedUserList: z.array(z.string()),
    archive: z.boolean(),
    publicKeySN: z.string().nullable(),
    keyRoleSN: z.string().nullable(),
    /** Username that added the order, or `sender:<name>` for a partner order. */
    userID: z.string(),
    orderNumber: z.string(),
    downstreamDevice: z.boolean(),
    revoked: z.boolean(),
    dateRevoked: z.string().nullable(),
    expiration: z.string().nullable(),
    breakage: z.object({ policy: ZBreakagePolicy, value: z.number().nullable() }),
    serialization: ZSerialization.nullable(),
    deviceParameters: z.array(ZDeviceParameter),
    qualityParameters: z.array(ZQualityParameter),
    /** How it arrived: `ui` (order/add), `upload` (order/upload), `partner` (/apl/order/add), `upstream` (an upstream Manage's authorization) or `protect` (/fss/order). */
    source: z.enum(['ui', 'upload', 'partner', 'upstream', 'protect']),
  })
  .meta({ id: 'Order' });
export type TOrder = z.infer<typeof ZOrder>;

export const authorizationStates = ['authorized', 'sent', 'received', 'revoked'] as const;
export const ZAuthorizationState = z.enum(authorizationStates);
export type TAuthorizationState = z.infer<typeof ZAuthorizationState>;

export const ZTrackingField = z
  .object({ fieldName: z.string().trim().min(1).max(128), fieldValue: z.string().max(1024) })
  .strict()
  .meta({ id: 'TrackingField' });

/** Spec §3 Authorization list entry (id, orderId, version) and what the console shows of it. */
export const ZAuthorization = z
  .object({
    id: z.string(),
    authorizationId: z.string(),
    orderId: z.string(),
    version: z.number().int(),
    /** `device` or `manage` (spec §3 authorization types). */
    type: z.enum(['device', 'manage']),
    deviceId: z.string().nullable(),
    manageId: z.string().nullable(),
    quantity: z.number().int(),
    state: ZAuthorizationState,
    expiration: z.string().nullable(),
    serialNumbers: z.object({ first: z.string(), last: z.string(), count: z.number().int() }).nullable(),
    authorizedUserList: z.array(z.string()),
    tracking: z.array(ZTrackingField),
    deviceParameters: z.array(ZDeviceParameter),
    qualityParameters: z.array(ZQualityParameter),
    dsiId: z.string(),
    companyName: z.string(),
    userID: z.string(),
    dateCreated: z.string(),
    dateSent: z.string().nullable(),
    dateReceived: z.string().nullable(),
    dateRevoked: z.string().nullable(),
    /** Manage targets: the outbox delivery state (`pending`, `delivered`), null for machines. */
    delivery: z.string().nullable(),
  })
  .meta({ id: 'Authorization' });
export type TAuthorization = z.infer<typeof ZAuthorization>;

export const ZAuditEntry = z
  .object({
    eventType: z.string(),
    actor: z.string().nullable(),
    subject: z.string().nullable(),
    details: z.unknown(),
    dateCreated: z.string(),
  })
  .meta({ id: 'AuditEntry' });

export type TAuditEntry = z.infer<typeof ZAuditEntry>;

export const ZOrderDetail = ZOrder.extend({
  groupIds: z.array(z.number().int()),
  /** One page of the order's authorizations (`pageNum`, `numberOfItems` of `order/fetch`). */
  authorizations: ZPage(ZAuthorization),
  /** The order's newest audit records (at most 50), newest first. */
  history: z.array(ZAuditEntry),
  /** True when the order has older records than `history` holds: the audit list (subject = the order's id) has them all. */
  historyTruncated: z.boolean(),
}).meta({ id: 'OrderDetail' });
export type TOrderDetail = z.infer<typeof ZOrderDetail>;

export const ZOrderAddRequest = z
  .object({ authorizationAuthorizedPolicyList: z.unknown().optional() })
  .meta({ id: 'OrderAddRequest' });
export const ZOrderIdQuery = z.object({ orderId: ZOrderId });
/** `order/fetch`: the order, with one page of its authorizations (10 by default). */
export const ZOrderFetchQuery = ZOrderIdQuery.extend(ZPageQuery.shape);
export type TOrderFetchQuery = z.infer<typeof ZOrderFetchQuery>;
export const ZOrderIdResponse = z.object({ orderId: z.string() }).meta({ id: 'OrderIdResponse' });

export const ZOrderArchiveRequest = z
  .object({
    archiveOrders: z
      .array(z.object({ orderId: ZOrderId }))
      .min(1)
      .max(1000),
  })
  .meta({ id: 'OrderArchiveRequest' });
export const ZOrderRestoreRequest = z
  .object({
    restoreOrders: z
      .array(z.object({ orderId: ZOrderId }))
      .min(1)
      .max(1000),
  })
  .meta({ id: 'OrderRestoreRequest' });
export const ZOrderRevokeRequest = z
  .object({ orderId: ZOrderId, includeAuthorized: z.boolean().default(false) })
  .meta({ id: 'OrderRevokeRequest' });
export const ZOrderEditGroupsRequest = z
  .object({ orderId: ZOrderId, groupIds: z.array(z.number().int().min(1)).max(1000) })
  .meta({ id: 'OrderEditGroupsRequest' });
export const ZOrdersChanged = z.object({ data: z.array(ZOrder) }).meta({ id: 'OrdersChanged' });

/**
 * Spec §3 Authorize request. `orderId` and `quantity` are required (§5) but checked by the
 * service so that their tokens (`orderIdNotValid`, `quantityIsRequired`) come with every other
 * problem in one 418. Exactly one of `deviceId` / `manageId`. `expiration`: epoch milliseconds;
 * none: the order's expiration.
 */
export const ZAuthorizeRequest = z
  .object({
    orderId: z.string().max(64).nullish(),
    deviceId: z.string().max(64).nullish(),
    manageId: z.string().max(64).nullish(),
    quantity: z.number().int().nullish(),
    authorizedUserList: z.array(z.string().max(128)).max(1000).default([]),
    expiration: z.number().int().nullish(),
    tracking: z.array(ZTrackingField).max(100).default([]),
    deviceParameters: z.array(ZDeviceParameter).max(2000).default([]),
    qualityParameters: z.array(ZQualityParameter).max(2000).default([]),
  })
  .meta({ id: 'AuthorizeRequest' });
export type TAuthorizeRequest = z.infer<typeof ZAuthorizeRequest>;
export const ZAuthorizeResponse = z.object({ authorizationId: z.string() }).meta({ id: 'AuthorizeResponse' });

export const ZAuthorizationSendRequest = z
  .object({ orderId: ZOrderId, authorizationId: ZAuthorizationId.nullish(), sendAll: z.boolean().nullish() })
  .meta({ id: 'AuthorizationSendRequest' });
export const ZAuthorizationSendResponse = z
  .object({
    data: z.array(z.object({ authorizationId: z.string(), state: ZAuthorizationState, delivery: z.string().nullable() })),
  })
  .meta({ id: 'AuthorizationSendResponse' });
export const ZAuthorizationRevokeRequest = z
  .object({ orderId: ZOrderId, authorizationId: ZAuthorizationId })
  .meta({ id: 'AuthorizationRevokeRequest' });
export const ZAuthorizationQuery = z.object({ orderId: ZOrderId, authorizationId: ZAuthorizationId });

/** `enforce/order/list`: authorizations handed to machines (sent or later), with their state. */
export const ZEnforceOrderListQuery = z.object({
  ...page,
  deviceId: ZDeviceId.optional(),
  state: ZAuthorizationState.optional(),
});
export const ZEnforceOrder = z
  .object({
    authorizationId: z.string(),
    orderId: z.string(),
    orderNumber: z.string(),
    dsiId: z.string(),
    deviceId: z.string(),
    deviceName: z.string().nullable(),
    quantity: z.number().int(),
    state: ZAuthorizationState,
    expiration: z.string().nullable(),
    dateSent: z.string().nullable(),
    dateReceived: z.string().nullable(),
    dateRevoked: z.string().nullable(),
  })
  .meta({ id: 'EnforceOrder' });
export type TEnforceOrder = z.infer<typeof ZEnforceOrder>;

/** Machine data licences (spec §3): data a machine uploaded under an authorization. */
export const ZDtl = z
  .object({
    dtlId: z.string(),
    deviceId: z.string(),
    authorizationId: z.string().nullable(),
    orderId: z.string().nullable(),
    dsiId: z.string().nullable(),
    fileName: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    manageId: z.string().nullable(),
    dateCreated: z.string(),
  })
  .meta({ id: 'Dtl' });
export type TDtl = z.infer<typeof ZDtl>;
export const ZDtlListQuery = z.object({ ...page, deviceId: ZDeviceId.optional(), orderId: ZOrderId.optional() });

/** Order senders: certificates whose holders may sign `/apl/order/add`. */
export const ZOrderSender = z
  .object({
    fingerprint: z.string(),
    name: z.string(),
    subject: z.string(),
    keySerialNumber: z.string(),
    notAfter: z.string(),
    dateCreated: z.string(),
  })
  .meta({ id: 'OrderSender' });
export type TOrderSender = z.infer<typeof ZOrderSender>;
export const ZOrderSenderAddRequest = z
  .object({ certificate: z.string().min(1).max(64_000), name: z.string().trim().min(1).max(256).optional() })
  .meta({ id: 'OrderSenderAddRequest' });
export const ZOrderSenderDeleteRequest = z
  .object({ fingerprint: z.string().min(1).max(128) })
  .meta({ id: 'OrderSenderDeleteRequest' });

/** The header carrying the sender's detached JWS over the canonical JSON of the `/apl/order/add` body. */
export const ORDER_SIGNATURE_HEADER = 'x-manifold-signature';

/**
 * STP: every machine request is this envelope. `signature` is a detached JWS (ES256 or RS256,
 * the machine's signing key) over the canonical JSON (keys sorted, no whitespace) of
 * `{body, deviceId, nonce, path, timestamp}`, where `path` is the request path (e.g.
 * `/stp/authorization/list`), so a signed request cannot be replayed at another endpoint.
 * `timestamp` must be within ±5 minutes of the server's clock; a `nonce` is accepted once.
 */
export const STP_WINDOW_MS = 5 * 60_000;
export const ZStpEnvelope = z
  .object({
    deviceId: z.uuid(),
    timestamp: z.iso.datetime({ offset: true }),
    nonce: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, '16-128 base64url characters'),
    body: z.record(z.string(), z.unknown()).default({}),
    signature: z.string().min(1).max(4096),
  })
  .meta({ id: 'StpEnvelope' });
export type TStpEnvelope = z.infer<typeof ZStpEnvelope>;

/** What the signature covers. */
export function stpSignedContent(envelope: Omit<TStpEnvelope, 'signature'>, path: string) {
  return { body: envelope.body, deviceId: envelope.deviceId, nonce: envelope.nonce, path, timestamp: envelope.timestamp };
}

export const ZStpPageBody = z.object(page).strict();
/** An authorization a machine asks for: malformed, it is as unavailable as one that names nothing. */
const ZStpAuthorizationId = ZId('authorizationNotAvailable');
export const ZStpAuthorizationBody = z.object({ authorizationId: ZStpAuthorizationId }).strict();
export const ZStpDesignBody = z.object({ authorizationId: ZStpAuthorizationId, fileId: z.uuid() }).strict();
export const ZStpUploadTokenBody = z
  .object({ authorizationId: ZStpAuthorizationId.optional(), purpose: z.enum(['dtl', 'event']).default('dtl') })
  .strict();

export const ZStpOrder = z
  .object({
    orderId: z.string(),
    orderNumber: z.string(),
    dsiId: z.string(),
    dsiVersion: z.number().int(),
    revisionId: z.string(),
    digestMethod: z.literal('SHA-256'),
    digestValue: z.string(),
    expiration: z.string().nullable(),
  })
  .meta({ id: 'StpOrder' });
export type TStpOrder = z.infer<typeof ZStpOrder>;
export const ZStpAuthorization = z
  .object({
    authorizationId: z.string(),
    orderId: z.string(),
    state: ZAuthorizationState,
    quantity: z.number().int(),
    expiration: z.string().nullable(),
    dateRevoked: z.string().nullable(),
  })
  .meta({ id: 'StpAuthorization' });
export type TStpAuthorization = z.infer<typeof ZStpAuthorization>;
export const ZStpUploadToken = z.object({ token: z.string(), expiresAt: z.string() }).meta({ id: 'StpUploadToken' });
