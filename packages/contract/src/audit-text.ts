/**
 * The audit trail as users read it (spec §4 audit event kinds, §7 `audit/list`): the English text
 * of every kind — the spec's wording for its kinds, Manifold's for its own — and the list's query
 * and entries. A new audit kind does not type-check until it has its text here.
 */
import { z } from 'zod';
import { auditEventTypes, type TAuditEventType } from './audit.js';
import { ZPageQuery } from './common.js';
import { secureRepoAuditEventText } from './secure-repo.js';

export const auditEventText: Record<TAuditEventType, string> = {
  // spec §4
  licenceAuthorizationFailed: 'Licence authorization failed',
  licenceAuthorized: 'Licence authorized',
  licenceReceived: 'Licence received',
  licenceReceivedByMachine: 'Licence received by machine',
  licenceRevoked: 'Licence revoked',
  machineDataStored: 'Machine data stored',
  machineDataReceived: 'Machine data received',
  designPackageReceivedByMachine: 'Design package received by machine',
  machineRegistered: 'Machine registered',
  machineDeregistered: 'Machine deregistered',
  machineIdle: 'Machine idle',
  machineOffline: 'Machine offline',
  jobStarted: 'Manufacturing job started',
  jobPaused: 'Manufacturing job paused',
  jobResumed: 'Manufacturing job resumed',
  jobEnded: 'Manufacturing job ended',
  jobFailed: 'Manufacturing job failed',
  jobCancelled: 'Manufacturing job cancelled',
  prebuild: 'Prebuild',
  prebuildCancelled: 'Prebuild cancelled',
  orderRevoked: 'Order revoked',
  privateFileDecrypted: 'Private file decrypted',
  publicFileAccessed: 'Public file accessed',
  qualityCheckPassed: 'Quality check passed',
  qualityCheckFailed: 'Quality check failed',
  quantityConsumed: 'Quantity consumed',
  revocationReceived: 'Revocation received',
  scanningPassed: 'Scanning passed',
  scanningFailed: 'Scanning failed',
  // Manifold's: design packages and machines
  designPackageCreated: 'Design package created',
  designPackageEdited: 'Design package edited',
  designPackageDeleted: 'Design package deleted',
  designPackageBuilt: 'Design package built',
  designPackageFileAdded: 'Design package file added',
  storageProviderChanged: 'Storage provider changed',
  storageTypesChanged: 'Storage types changed',
  storageFileUploaded: 'Storage file uploaded',
  dasSettingChanged: 'Design archive service setting changed',
  dasPackageUploaded: 'Design package uploaded into the design archive',
  designPackageFileDeleted: 'Design package file deleted',
  designPackageFilePrivacyChanged: 'Design package file made public or private',
  designPackageWorkflowChanged: 'Design package workflow changed',
  deviceTemplateImported: 'Device template imported',
  deviceTemplateDeleted: 'Device template deleted',
  machineApproved: 'Machine approved',
  machineRejected: 'Machine rejected',
  machineDisabled: 'Machine disabled',
  machineEnabled: 'Machine enabled',
  machineImageChanged: 'Machine picture changed',
  // orders and authorizations
  licenceSent: 'Licence sent',
  licenceDownloaded: 'Licence downloaded',
  orderArchived: 'Order archived',
  orderRestored: 'Order restored',
  orderGroupsEdited: 'Order groups edited',
  orderSenderTrusted: 'Order sender trusted',
  orderSenderRemoved: 'Order sender removed',
  uploadTokenIssued: 'Upload token issued to machine',
  // traceability
  traceChainBroken: 'Machine event chain broken',
  traceEventsUploaded: 'Events uploaded',
  eventConfigurationChanged: 'Event forwarding configured',
  queuedEventSent: 'Queued event sent now',
  queuedEventDeleted: 'Queued event deleted',
  outboxMessageRetried: 'Outbox message tried again now',
  forwardedEventReceived: 'Event received from a Manage instance',
  designTransferred: 'Design sent to a Manage instance',
  designReceived: 'Design received from a peer',
  machineDataTransferred: 'Machine data sent to a Manage instance',
  // quality
  traceParameterTypeAdded: 'Trace parameter type added',
  traceParameterTemplateChanged: 'Trace parameter template changed',
  traceParameterValueChanged: 'Trace parameter value changed',
  // single sign-on, trusted issuers, OAuth clients
  ssoLoginSucceeded: 'Signed in with single sign-on',
  ssoLoginRefused: 'Single sign-on refused',
  ssoUserCreated: 'User created by single sign-on',
  ssoProviderSaved: 'Identity provider saved',
  ssoProviderDeleted: 'Identity provider deleted',
  trustedIssuerAdded: 'Trusted token issuer added',
  trustedIssuerDeleted: 'Trusted token issuer removed',
  oauthClientAdded: 'OAuth client added',
  oauthClientDeleted: 'OAuth client deleted',
  // accounts and server
  loginSucceeded: 'Signed in',
  loginFailed: 'Sign-in failed',
  loginThrottleCleared: 'Failed sign-in counter cleared',
  logout: 'Signed out',
  userAdded: 'User added',
  userEdited: 'User edited',
  userDeleted: 'User deleted',
  userPasswordChanged: 'Password changed',
  userRoleChanged: 'Role changed',
  groupAdded: 'Group added',
  groupEdited: 'Group edited',
  groupDeleted: 'Group deleted',
  initialAdminCreated: 'First administrator created',
  serverKeysProvisioned: 'Server keys created',
  serverKeysRekeyed: 'Server keys replaced',
  serverCertificateInstalled: 'Server certificate installed',
  trustAnchorAdded: 'Trust anchor added',
  developmentCaCreated: 'Development certificate authority created',
  serverSettingsChanged: 'Server settings changed',
  addonsChanged: 'Addons switched',
  operatingLicenceInstalled: 'Operating licence installed',
  authenticatorAdded: 'Security key added',
  authenticatorDeleted: 'Security key removed',
  sessionEscalated: 'Session escalated with a security key',
  escalationFailed: 'Security-key escalation failed',
  escalationPolicyChanged: 'Security-key requirement for administrators changed',
  accessControlAdded: 'Access policy added',
  accessControlEdited: 'Access policy changed',
  accessControlDeleted: 'Access policy deleted',
  accessRoleAdded: 'Access role added',
  accessRoleEdited: 'Access role changed',
  accessRoleDeleted: 'Access role deleted',
  accessConstraintRefused: 'Refused by access controls',
  ...secureRepoAuditEventText,
};

/** `GET /ui/audit/list`: newest first; each filter optional. `from` inclusive, `to` exclusive. */
export const ZAuditListQuery = ZPageQuery.extend({
  kind: z.enum(auditEventTypes).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  actor: z.string().min(1).max(128).optional(),
  subject: z.string().min(1).max(256).optional(),
});
export type TAuditListQuery = z.infer<typeof ZAuditListQuery>;

export const ZAuditListEntry = z
  .object({
    id: z.number().int(),
    eventType: z.string(),
    /** The kind in the spec's user-facing wording (English). */
    text: z.string(),
    actor: z.string().nullable(),
    subject: z.string().nullable(),
    details: z.unknown(),
    sourceIp: z.string().nullable(),
    dateCreated: z.string(),
  })
  .meta({ id: 'AuditListEntry' });
export type TAuditListEntry = z.infer<typeof ZAuditListEntry>;
