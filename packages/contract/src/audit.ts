/**
 * Kinds of audit record. The account kinds come first; the manufacturing kinds of spec §4
 * (licence authorized, revoked, machine registered, …) are added by the features that write them.
 */
import { licensingAuditEventTypes } from './licensing-tokens.js';
import { packageAuditEventTypes } from './package-tokens.js';
import { storageAuditEventTypes } from './storage.js';
import { securityAuditEventTypes } from './security.js';
import { traceAuditEventTypes } from './trace.js';
import { qualityAuditEventTypes } from './quality-tokens.js';
import { identityAuditEventTypes } from './identity.js';
import { secureRepoAuditEventTypes } from './secure-repo.js';
import { peerDesignAuditEventTypes } from './peer-designs.js';

export const auditEventTypes = [
  ...packageAuditEventTypes,
  ...licensingAuditEventTypes,
  ...traceAuditEventTypes,
  ...storageAuditEventTypes,
  ...qualityAuditEventTypes,
  ...identityAuditEventTypes,
  ...securityAuditEventTypes,
  ...secureRepoAuditEventTypes,
  ...peerDesignAuditEventTypes,
  'loginSucceeded',
  'loginFailed',
  'loginThrottleCleared',
  'logout',
  'userAdded',
  'userEdited',
  'userDeleted',
  'userPasswordChanged',
  'userRoleChanged',
  'groupAdded',
  'groupEdited',
  'groupDeleted',
  'initialAdminCreated',
  'serverKeysProvisioned',
  'serverKeysRekeyed',
  'serverCertificateInstalled',
  'trustAnchorAdded',
  'developmentCaCreated',
  // the event queue (docs/traceability.md#the-event-queue)
  'eventConfigurationChanged',
  'queuedEventSent',
  'queuedEventDeleted',
  'outboxMessageRetried',
  'forwardedEventReceived',
  'serverSettingsChanged',
  'addonsChanged',
  'operatingLicenceInstalled',
] as const;
export type TAuditEventType = (typeof auditEventTypes)[number];
