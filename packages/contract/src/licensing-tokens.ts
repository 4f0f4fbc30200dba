/**
 * Error tokens, audit kinds and permission rows of orders, authorizations and machine pulls
 * (spec §3, §4, §6, §7). The spec's own tokens live in `specErrorTokens`; these are Manifold's
 * for cases the spec has no token for. Merged into `manifoldErrorTokens`, `auditEventTypes` and
 * `permissions`.
 */
export const licensingErrorTokens = {
  orderNumberDuplicate: 'An order with this orderNumber from this source already exists; send it with revokes to replace it',
  orderSenderNotTrusted: 'The order is not signed by a sender certificate the administrator trusted',
  orderSenderCertificateInvalid: 'The certificate cannot be trusted as an order sender',
  orderSenderNotPresent: 'No trusted order sender has this fingerprint',
  trackingFieldDuplicate: 'Each tracking field name may appear once',
  authorizedUserNotInOrder: 'The user is not on the order\u2019s authorized user list',
  stpSignatureInvalid: 'The request is not signed by the machine\u2019s registered signing key',
  stpTimestampOutOfWindow: 'The request timestamp is outside the accepted window (\u00b15 minutes)',
  stpNonceReplayed: 'This request was already received (nonce seen before)',
  authorizationAlreadyRevoked: 'The authorization is already revoked',
  authorizationNotAvailable: 'The authorization is not available to this machine (not sent, revoked or expired)',
} as const;

export const licensingAuditEventTypes = [
  // spec §4: licence received, authorization failed, authorized, revoked, received by machine;
  // order revoked; design package received by machine
  'licenceReceived',
  'licenceAuthorizationFailed',
  'licenceAuthorized',
  'licenceRevoked',
  'licenceReceivedByMachine',
  'orderRevoked',
  'designPackageReceivedByMachine',
  // Manifold's: the other steps of an order and its authorizations
  'licenceSent',
  'licenceDownloaded',
  'orderArchived',
  'orderRestored',
  'orderGroupsEdited',
  'orderSenderTrusted',
  'orderSenderRemoved',
  'uploadTokenIssued',
] as const;

/**
 * Spec §6: orders (list, fetch, add, archive, restore, revoke, upload) and authorizations (list,
 * download, send, authorize, revoke) for both roles; a USER sees only the orders of their groups
 * (checked in the service). Grouping orders is administration. Machines pull with signed STP
 * requests (`partner`: each request checks its own signature).
 */
export const licensingPermissions = {
  'GET /ui/order/policy-schema': 'anyRole',
  'POST /ui/order/add': 'anyRole',
  'POST /ui/order/upload': 'anyRole',
  'GET /ui/order/list': 'anyRole',
  'GET /ui/order/fetch': 'anyRole',
  'POST /ui/order/archive': 'anyRole',
  'POST /ui/order/restore': 'anyRole',
  'POST /ui/order/revoke': 'anyRole',
  'POST /ui/order/edit-groups': 'admin',
  'POST /ui/authorization/authorize': 'anyRole',
  'GET /ui/authorization/list': 'anyRole',
  'POST /ui/authorization/send': 'anyRole',
  'POST /ui/authorization/revoke': 'anyRole',
  'GET /ui/authorization/download': 'anyRole',
  'GET /ui/enforce/order/list': 'anyRole',
  'GET /ui/dtl/list': 'anyRole',
  'GET /ui/admin/order-senders': 'admin',
  'POST /ui/admin/order-senders': 'admin',
  'POST /ui/admin/order-senders/delete': 'admin',
  'POST /apl/order/add': 'partner',
  'POST /stp/order/list': 'partner',
  'POST /stp/authorization/list': 'partner',
  'POST /stp/authorization/download': 'partner',
  'POST /stp/design/download': 'partner',
  'POST /stp/upload/token': 'partner',
} as const;
