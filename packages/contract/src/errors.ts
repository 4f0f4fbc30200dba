import { z } from 'zod';
import { licensingErrorTokens } from './licensing-tokens.js';
import { traceErrorTokens } from './trace.js';
import { qualityErrorTokens } from './quality-tokens.js';
import { packageErrorTokens } from './package-tokens.js';
import { serverAdminErrorTokens } from './server-admin.js';
import { identityErrorTokens } from './identity.js';
import { securityErrorTokens } from './security.js';
import { secureRepoErrorTokens } from './secure-repo.js';
import { outboxErrorTokens } from './outbox.js';

/**
 * Business error tokens of spec §8, spelled exactly as the spec spells them (typos included:
 * peers and clients match on these strings). Each has a default English description.
 */
export const specErrorTokens = {
  // User and login
  usernameTaken: 'A user with this username already exists',
  userNotPresent: 'The user does not exist',
  userOnlyAdminInSystem: 'At least one administrator must remain',
  userNotAuthorizedToEdit: 'You may only edit your own profile',
  userNotAuthorizedToPromoteRole: 'You may not change your own role',
  userHasNoPassword: 'A password is required',
  usernameEmpty: 'Username is required',
  userFirstNameEmpty: 'First name is required',
  userLastNameEmpty: 'Last name is required',
  userEmailEmpty: 'Email is required',
  userEmailInvalid: 'Email is not a valid address',
  userRoleEmpty: 'Role is required',
  userLanguageUndefined: 'Language is required and must be one of the supported languages',
  userTimeZoneEmpty: 'Time zone is required and must be a known IANA time zone',
  passwordIncorrect: 'Username or password is incorrect',
  // Provision and certificates
  provisionNotInitialized: 'The server keys have not been created yet',
  provisionFetchError: 'The certificate signing requests could not be produced',
  provisionAlreadyIntialized: 'The server keys already exist',
  provisionCsrInvalid: 'The certificate does not match the certificate signing request',
  certificateExchangeCommunicationFailed: 'The peer could not be reached for the certificate exchange',
  certificateExchangeInvalidResponse: 'The peer answered the certificate exchange with an invalid response',
  certificateExchangeMissingCertificate: 'A required certificate is missing',
  certificateExchangeChainVerifyFail: 'The certificate chain could not be verified',
  certificateExchangeCertificateChainVerifyFail: 'The certificate chain could not be verified',
  certificateExchangeNotInitialized: 'This server has no certificates yet',
  // Registration
  registrationExchangeCommunicationFailed: 'The peer could not be reached for the registration',
  registrationExchangeInvalidResponse: 'The peer answered the registration with an invalid response',
  registrationExchangeInvalidApl: 'The registration record is not valid',
  registrationExchangeInvalidTarget: 'The registration target is not valid',
  registrationExchangeInvalidRegistration: 'The registration is not valid',
  registrationExchangeAlreadyRegistered: 'This registration already exists',
  registrationExchangeDuplicateName: 'A registration with this name already exists',
  registrationRemoteApprovalFailed: 'The remote side could not be told of the approval',
  registrationRemoteRejectFailed: 'The remote side could not be told of the rejection',
  registrationTargetCannotUnsuspend: 'The registration cannot be unsuspended',
  registrationHasBeenCanceled: 'The registration has been cancelled',
  registrationAlreadyApproved: 'The registration is already approved',
  registrationAlreadyRejected: 'The registration is already rejected',
  registrationNotPresent: 'The registration does not exist',
  registrationInitiatorCantApprove: 'The side that asked for the registration cannot approve it',
  registrationNotApproved: 'The registration is not approved',
  // Policy and payload
  fssTokenNotFound: 'The registration token was not found',
  fssPayloadDecryptError: 'The payload could not be decrypted',
  fssPayloadEncryptError: 'The payload could not be encrypted',
  authorizedPolicyListInvalid: 'The authorized policy list is not valid',
  authorizedPolicyListNotFormattedCorrectly: 'The authorized policy list is not formatted correctly',
  authorizedPolicyListUnknownKeyRole: 'The authorized policy list names an unknown key role',
  authorizedPolicyLicenseeRoleMismatch: 'The licensee role does not match',
  analyticsPolicyListNotFormattedCorrectly: 'The analytics policy list is not formatted correctly',
  // Order, device, authorization
  orderIdNotValid: 'The order does not exist',
  orderNotMappable: 'The order cannot be mapped to a design package',
  orderAlreadyRevoked: 'The order is already revoked',
  deviceIdNotValid: 'The device does not exist',
  deviceNotApproved: 'The device is not approved',
  deviceNotValidForAuthorization: 'The device does not match the order',
  manageIdNotValid: 'The Manage instance does not exist',
  manageInstaceNotApproved: 'The Manage instance is not approved',
  cannotSendAuthorizationsToUpstreamManageInstances: 'Authorizations cannot be sent to upstream Manage instances',
  deviceOrManageIdNotProvided: 'A device or a Manage instance is required',
  expirationDateInThePast: 'The expiration date is in the past',
  orderHasExpired: 'The order has expired',
  expirationDateIsAfterParentExpirationDate: 'The expiration date is after the order expiration date',
  quantityExceedsAllottedAmount: 'The quantity exceeds what the order has left',
  quantityIsRequired: 'Quantity is required',
  quantityMustBeGreaterThanZero: 'Quantity must be greater than zero',
  orderHasNoMoreQuantity: 'The order has no quantity left',
  orderHasNoAuthorizations: 'The order has no authorizations',
  sendingAuthorizationFailed: 'The authorization could not be sent',
  invalidOrderAndAuthorizationIdCombination: 'The authorization does not belong to the order',
  authorizationAssignedToDownstreamDevice: 'The authorization is assigned to a downstream device',
  unableToRevokeDownstream: 'The authorization could not be revoked downstream',
  authorizationMissingRequiredDeviceParameters: 'Required device parameters are missing',
  // Device fields
  invalidDeviceMachineName: 'The machine name does not match',
  invalidDeviceFamily: 'The machine family does not match',
  invalidDeviceMachineClass: 'The machine class does not match',
  invalidDeviceTechnology: 'The machine technology does not match',
  invalidDeviceSerialNumber: 'The machine serial number does not match',
  invalidDeviceManufacturer: 'The machine manufacturer does not match',
  invalidDeviceModel: 'The machine model does not match',
  invalidDeviceManufacturingInfo: 'The machine manufacturing information does not match',
  // Serialization
  serializationOutOfNumbers: 'The serial number range is used up',
  serializationDoesNotHaveEnoughNumbersForQuantity: 'Not enough serial numbers are left for this quantity',
  serializationHasError: 'The serialization settings are not valid',
  // Parameters and values
  parameterBroadensPreexistingParameterSetByOrder: 'The parameter broadens a bound set by the order',
  parameterBroadensPreexistingParameterSetByDevice: 'The parameter broadens a bound set by the device',
  parameterDataTypeNotEqualToPreexistingParameterDataType: 'The parameter data type differs from the existing one',
  parameterValueNotEqualToPreexistingParameterValue: 'The parameter value is locked',
  valueOutOfRange: 'The value is out of range',
  invalidValueFormat: 'The value is not well formed for its type',
  valueExclusiveAllowsOnlyOneValue: 'Only one value is allowed',
  valueNotFoundInChoiceList: 'The value is not in the choice list',
  valueRequired: 'A value is required',
  rangeExpandsPreviousRange: 'The range is wider than the existing range',
  choiceListDoesNotContainInitialChoices: 'The choice list drops required initial choices',
  invalidRangeExpandsPreviousRange: 'The range is wider than the existing range',
  invalidValueOutOfRange: 'The value is out of range',
  invalidValueInput: 'The value is not well formed for its type',
  invalidValueRequired: 'A value is required',
  invalidValueExclusiveAllowsOnlyOneValue: 'Only one value is allowed',
  invalidChoiceListDoesNotContainInitialChoices: 'The choice list drops required initial choices',
  invalidValueNotFoundInChoiceList: 'The value is not in the choice list',
  // Storage
  storageNotEnabled: 'Storage is not enabled',
  storageProviderNotSelected: 'No storage provider is selected',
  storageProviderNotConfigured: 'The storage provider is not configured',
  storageProviderNotAvailable: 'The storage provider is not available',
  storageProviderConfigurationNotValid: 'The storage provider configuration is not valid',
  storageTypeUnavailable: 'The storage type is not available',
  storageTypeNotConfigured: 'The storage type is not configured',
  storageTypeWriteError: 'The file could not be written',
  storageTypeReadError: 'The file could not be read',
  dasPackageInvalid: 'The file is not a design package: a DSI entry with its manifest and signature',
  dasEntryExists: 'The design archive already holds this DSI version',
  // Other
  traceEventIdNotValid: 'The trace event does not exist',
  traceEventSourceNotSupported: 'The trace event source is not supported',
  issuerNotFound: 'The issuer does not exist',
  issuerAlreadyexists: 'The issuer already exists',
  clientDoesNotExist: 'The client does not exist',
  httpClientBadUrl: 'The address is not valid',
  functionNotImplemented: 'This function is not implemented',
  addonNotFound: 'The addon does not exist',
  unknownError: 'Something went wrong',
  duplicateAplReceived: 'This registration record was already received',
  manageFunctionalityNotEnabled: 'Manage functionality is not enabled',
  traceFuncitionalityNotEnabled: 'Trace functionality is not enabled',
} as const;

/**
 * Tokens Manifold adds where the spec has a status but names no token (transport errors) or
 * where a rule it asks for has no token of its own. Clients treat them like the spec's.
 */
export const manifoldErrorTokens = {
  ...packageErrorTokens,
  ...securityErrorTokens,
  ...licensingErrorTokens,
  ...traceErrorTokens,
  ...qualityErrorTokens,
  ...serverAdminErrorTokens,
  ...identityErrorTokens,
  ...secureRepoErrorTokens,
  ...outboxErrorTokens,
  malformedRequest: 'The request is malformed',
  invalidSessionToken: 'Invalid session token',
  actionNotAllowed: 'Action not allowed',
  entityDoesNotExist: 'Entity does not exist',
  unsupportedApiVersion: 'Unsupported API version',
  payloadTooLarge: 'The request is too large',
  loginTemporarilyLocked: 'Too many failed login attempts; try again later',
  loginThrottleKeyNotPresent: 'No failed-login counter has this key',
  passwordTooShort: 'The password must have at least 8 characters',
  passwordTooCommon: 'This password is among the most common ones; choose another',
  usernameInvalid: 'A username has at most 64 letters, digits or . _ - @ + (no spaces, control characters or markup)',
  invalidCharacters:
    'The text contains characters that cannot be carried (control characters, NUL, U+FFFE/U+FFFF, lone surrogates)',
  currentPasswordRequired: 'Enter your current password to set a new one',
  groupNameEmpty: 'Group name is required',
  groupNameTaken: 'A group with this name already exists',
  groupNotPresent: 'The group does not exist',
  keyTypeInvalid: 'Key type must be RSA or EC',
  serviceInvalid: 'Service must be manage, trace, enforce or protect',
  csrParameterInvalid: 'csr must be signing, encryption or both',
  certificateTypeInvalid: 'The certificate type is not one of the allowed values',
  replyRequestInvalid: 'replyRequest must be both, signing or encryption',
  uploadFileMissing: 'A file is required',
  trustAnchorInvalid: 'The certificate cannot be a trust anchor',
} as const;

export const errorDescriptions = { ...specErrorTokens, ...manifoldErrorTokens };
export type ErrorToken = keyof typeof errorDescriptions;
export const errorTokens = Object.keys(errorDescriptions) as ErrorToken[];

export const ZErrorResponse = z
  .object({
    errorToken: z.string(),
    errorDescription: z.string(),
    /** The request field the error is about, when there is one (lets a form show it in place). */
    field: z.string().optional(),
  })
  .meta({ id: 'ErrorResponse' });
export type TErrorResponse = z.infer<typeof ZErrorResponse>;

/**
 * A field named as errors name it (`field`): nested properties joined by dots, list items by index
 * — `parameters[2].low` from zod's `['parameters', 2, 'low']`, after `base` when given. The server's
 * refusals and the console's own input checks name fields with it alike.
 */
export function formatPath(path: readonly PropertyKey[], base = ''): string {
  let text = base;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text ? `.${String(segment)}` : String(segment);
  }
  return text;
}

export const ZMultipleErrorResponse = z.object({ data: z.array(ZErrorResponse) }).meta({ id: 'MultipleErrorResponse' });
export type TMultipleErrorResponse = z.infer<typeof ZMultipleErrorResponse>;

/** Status codes of spec §8. */
export const HttpStatus = {
  ok: 200,
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  notAcceptable: 406,
  multipleErrors: 418,
  businessError: 420,
  notImplemented: 501,
} as const;
