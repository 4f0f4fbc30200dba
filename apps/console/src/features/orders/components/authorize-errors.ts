import type { TFunction } from 'i18next';
import { placeProblems, type FormErrors } from '../../../components/api-error-message';

/** What the authorize request carried, to place problems that name a list position. */
export interface AuthorizeSent {
  deviceParameterIds: readonly string[];
  qualityParameterIds: readonly string[];
}

const plainFields = new Set(['quantity', 'expiration', 'deviceId', 'manageId', 'authorizedUserList']);

/** Tokens about the target that the server reports without a field of the form. */
const fieldOfToken: Readonly<Record<string, string>> = {
  quantityIsRequired: 'quantity',
  quantityMustBeGreaterThanZero: 'quantity',
  quantityExceedsAllottedAmount: 'quantity',
  orderHasNoMoreQuantity: 'quantity',
  serializationOutOfNumbers: 'quantity',
  serializationDoesNotHaveEnoughNumbersForQuantity: 'quantity',
  expirationDateInThePast: 'expiration',
  expirationDateIsAfterParentExpirationDate: 'expiration',
  deviceOrManageIdNotProvided: 'deviceId',
  deviceIdNotValid: 'deviceId',
  deviceNotApproved: 'deviceId',
  deviceNotValidForAuthorization: 'deviceId',
  manageIdNotValid: 'manageId',
  manageInstaceNotApproved: 'manageId',
  cannotSendAuthorizationsToUpstreamManageInstances: 'manageId',
  trackingFieldDuplicate: 'tracking',
  userNotPresent: 'authorizedUserList',
  authorizedUserNotInOrder: 'authorizedUserList',
};

function parameterKey(list: 'deviceParameters' | 'qualityParameters', field: string, sentIds: readonly string[]) {
  const positional = new RegExp(`^${list}\\[(\\d+)\\]`).exec(field);
  if (positional) {
    const id = sentIds[Number(positional[1])];
    return id === undefined ? undefined : `${list}.${id}`;
  }
  if (!field.startsWith(`${list}.`)) return undefined;
  const rest = field.slice(list.length + 1);
  // parameter ids may hold dots: the longest sent id that prefixes the rest, else up to the last dot
  const known = [...sentIds].sort((a, b) => b.length - a.length).find((id) => rest === id || rest.startsWith(`${id}.`));
  if (known !== undefined) return `${list}.${known}`;
  const lastDot = rest.lastIndexOf('.');
  return `${list}.${lastDot > 0 ? rest.slice(0, lastDot) : rest}`;
}

/**
 * The input a server `field` of the authorize call belongs to: `quantity`, `expiration`,
 * `deviceId`, `manageId`, `authorizedUserList`, `tracking.<row>`, `deviceParameters.<id>`,
 * `qualityParameters.<id>`; undefined for what concerns the order as a whole.
 */
export function authorizeFieldOf(field: string | undefined, token: string, sent: AuthorizeSent): string | undefined {
  if (field !== undefined) {
    if (plainFields.has(field)) return field;
    if (field.startsWith('deviceIdentity.') || field === 'parameterVersion') return 'deviceId';
    if (/^authorizedUserList\[\d+\]$/.test(field)) return 'authorizedUserList';
    const tracking = /^tracking\[(\d+)\]/.exec(field);
    if (tracking) return `tracking.${tracking[1]}`;
    const device = parameterKey('deviceParameters', field, sent.deviceParameterIds);
    if (device) return device;
    const quality = parameterKey('qualityParameters', field, sent.qualityParameterIds);
    if (quality) return quality;
  }
  return fieldOfToken[token];
}

/** Every problem of a refused authorize request on its input at once; the rest for the whole form. */
export function authorizeErrorsFrom(t: TFunction, error: unknown, sent: AuthorizeSent): FormErrors {
  return placeProblems(t, error, (problem) => authorizeFieldOf(problem.field, problem.errorToken, sent), { distinct: true });
}
