import {
  deviceParameterProblems,
  type ErrorToken,
  type NarrowingProblem,
  parameterSetProblems,
  type TAuthorizeRequest,
  type TDeviceIdentityConstraint,
  type TDeviceParameter,
} from '@manifold/contract';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import { ErrorCollector } from '../../lib/app-error.js';
import { type OrderRecord, remainingQuantity } from './orders.repository.js';
import { qualityAsDeviceParameter } from './policy-check.js';
import type { LicensedDevice } from './recipients.repository.js';
import { usernameKey } from '../users/usernames.js';

/**
 * The rules of `authorization/authorize` (DOMAIN.md, the licence chain) as pure functions over
 * what the service has read: each adds every problem it finds to the collector, so one call
 * answers all of them together.
 */

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Latest instant a JavaScript Date can hold (epoch ms). */
const MAX_TIME = 8_640_000_000_000_000;

/** Whether an id can name a row at all (anything else is not looked up). */
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** The value-rule tokens of a parameter set checked on its own, as the authorize call spells them. */
const authorizeVariant: Partial<Record<ErrorToken, ErrorToken>> = {
  valueOutOfRange: 'invalidValueOutOfRange',
  invalidValueFormat: 'invalidValueInput',
  valueNotFoundInChoiceList: 'invalidValueNotFoundInChoiceList',
  valueExclusiveAllowsOnlyOneValue: 'invalidValueExclusiveAllowsOnlyOneValue',
};

/** Order identity field → the spec's token for a machine that does not match it. */
const identityChecks: [keyof TDeviceIdentityConstraint, keyof LicensedDevice, ErrorToken | null][] = [
  ['id', 'identity_id', null],
  ['name', 'name', 'invalidDeviceMachineName'],
  ['family', 'family', 'invalidDeviceFamily'],
  ['deviceClass', 'device_class', 'invalidDeviceMachineClass'],
  ['technology', 'technology', 'invalidDeviceTechnology'],
  ['serialNumber', 'serial_number', 'invalidDeviceSerialNumber'],
  ['manufacturer', 'manufacturer', 'invalidDeviceManufacturer'],
  ['model', 'model', 'invalidDeviceModel'],
];

const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/** What the service read for one authorize request. */
export interface AuthorizeFacts {
  input: TAuthorizeRequest;
  now: Date;
  /** The order named by `orderId`, when it exists and the caller may see it. */
  order: OrderRecord | undefined;
  device: LicensedDevice | undefined;
  manage: ManageInstanceRow | undefined;
  /** Lower-case usernames of `authorizedUserList` that exist. */
  knownUsers: Set<string>;
}

export interface AuthorizeVerdict {
  problems: ErrorCollector;
  /** The order that is not revoked (undefined when there is none). */
  live: OrderRecord | undefined;
  /** When the authorization would expire: the asked expiration, else the order's. */
  expiresAt: string | null;
}

/** Every rule, in the order the problems are answered. */
export function checkAuthorize(facts: AuthorizeFacts): AuthorizeVerdict {
  const { input, order } = facts;
  const problems = new ErrorCollector();
  if (!input.orderId) problems.add('orderIdNotValid', 'orderId', 'orderId is required');
  if (input.orderId && !order) problems.add('orderIdNotValid', 'orderId');
  if (order?.revoked === 1) problems.add('orderAlreadyRevoked', 'orderId');
  const live = order && order.revoked === 0 ? order : undefined;
  checkQuantity(input.quantity, live, problems);
  const expiresAt = checkExpiration(input.expiration, live, facts.now, problems);
  checkTarget(facts, live, problems);
  checkParameters(input, live, facts.device, problems);
  checkTracking(input.tracking, problems);
  checkAuthorizedUsers(input.authorizedUserList, facts.knownUsers, live, problems);
  if (live && isSerialized(live)) checkSerialization(live, input.quantity ?? 0, problems);
  return { problems, live, expiresAt };
}

export function isSerialized(order: Pick<OrderRecord, 'serial_type'>): boolean {
  return order.serial_type !== null;
}

export function checkQuantity(
  quantity: number | null | undefined,
  order: OrderRecord | undefined,
  problems: ErrorCollector,
): void {
  if (quantity === null || quantity === undefined) problems.add('quantityIsRequired', 'quantity');
  else if (quantity <= 0) problems.add('quantityMustBeGreaterThanZero', 'quantity');
  else if (order) {
    const remaining = remainingQuantity(order);
    if (remaining <= 0) problems.add('orderHasNoMoreQuantity', 'quantity');
    else if (quantity > remaining)
      problems.add('quantityExceedsAllottedAmount', 'quantity', `The order has ${remaining} left; ${quantity} were asked for`);
  }
}

/** Checks the asked expiration against now and the order's; answers when the authorization expires. */
export function checkExpiration(
  expiration: number | null | undefined,
  order: OrderRecord | undefined,
  now: Date,
  problems: ErrorCollector,
): string | null {
  let expiresAt = order?.expires_at ?? null;
  if (order?.expires_at && order.expires_at <= now.toISOString()) problems.add('orderHasExpired', 'orderId');
  if (expiration !== null && expiration !== undefined) {
    if (expiration <= now.getTime()) problems.add('expirationDateInThePast', 'expiration');
    else if (expiration > MAX_TIME || (order?.expires_at && expiration > Date.parse(order.expires_at)))
      problems.add('expirationDateIsAfterParentExpirationDate', 'expiration');
    else expiresAt = new Date(expiration).toISOString();
  }
  return expiresAt;
}

/** One machine or one downstream Manage instance, approved (and the machine matching the order). */
export function checkTarget(
  facts: Pick<AuthorizeFacts, 'input' | 'device' | 'manage'>,
  order: OrderRecord | undefined,
  problems: ErrorCollector,
): void {
  const { deviceId, manageId } = targetIds(facts.input);
  const { device, manage } = facts;
  if (deviceId === undefined && manageId === undefined) problems.add('deviceOrManageIdNotProvided', 'deviceId');
  else if (deviceId !== undefined && manageId !== undefined)
    problems.add('deviceOrManageIdNotProvided', 'manageId', 'Give either a deviceId or a manageId, not both');
  else if (deviceId !== undefined) {
    if (!device) problems.add('deviceIdNotValid', 'deviceId');
    else {
      if (device.registration_state !== 'Approved' || device.disabled === 1) problems.add('deviceNotApproved', 'deviceId');
      if (order) checkIdentity(order, device, problems);
    }
  } else if (!manage) problems.add('manageIdNotValid', 'manageId');
  else if (manage.manage_type !== 'downStreamManage')
    problems.add('cannotSendAuthorizationsToUpstreamManageInstances', 'manageId');
  else if (manage.registration_state !== 'Approved') problems.add('manageInstaceNotApproved', 'manageId');
}

/** The target ids of the request; an empty string counts as absent. */
export function targetIds(input: Pick<TAuthorizeRequest, 'deviceId' | 'manageId'>): {
  deviceId: string | undefined;
  manageId: string | undefined;
} {
  return { deviceId: input.deviceId || undefined, manageId: input.manageId || undefined };
}

export function checkIdentity(order: OrderRecord, device: LicensedDevice, problems: ErrorCollector): void {
  const wanted = order.device_identity ?? {};
  const mismatches: [ErrorToken | null, string][] = [];
  for (const [field, column, token] of identityChecks) {
    const value = wanted[field];
    if (value !== undefined && value.trim() !== '' && !same(value, device[column] as string | null))
      mismatches.push([token, field]);
  }
  if (order.parameter_version !== null && !same(order.parameter_version, device.parameter_version)) {
    mismatches.push(['invalidDeviceManufacturingInfo', 'parameterVersion']);
  }
  if (mismatches.length === 0) return;
  problems.add('deviceNotValidForAuthorization', 'deviceId');
  for (const [token, field] of mismatches) if (token) problems.add(token, `deviceIdentity.${field}`);
}

/** The narrowed parameters stay within the order's (and the machine's) bounds. */
export function checkParameters(
  input: Pick<TAuthorizeRequest, 'deviceParameters' | 'qualityParameters'>,
  order: OrderRecord | undefined,
  device: LicensedDevice | undefined,
  problems: ErrorCollector,
): void {
  const report = (base: string, list: NarrowingProblem[]) => {
    for (const problem of list) problems.add(problem.token, `${base}.${problem.parameterId}.${problem.field}`);
  };
  for (const problem of deviceParameterProblems(input.deviceParameters, 'deviceParameters')) {
    problems.add(authorizeVariant[problem.token] ?? problem.token, problem.path);
  }
  if (!order) return;
  const bounds: { source: 'order' | 'device'; parameters: TDeviceParameter[] }[] = [
    { source: 'order', parameters: order.device_parameters },
  ];
  if (device) bounds.push({ source: 'device', parameters: device.parameters });
  report('deviceParameters', parameterSetProblems(bounds, input.deviceParameters, 'authorize'));
  const known = new Set(bounds.flatMap((bound) => bound.parameters.map((parameter) => parameter.parameterId)));
  for (const parameter of input.deviceParameters) {
    if (!known.has(parameter.parameterId))
      problems.add(
        'invalidValueInput',
        `deviceParameters.${parameter.parameterId}`,
        'Neither the order nor the machine has this parameter',
      );
  }

  const orderQuality = order.quality_parameters.map(qualityAsDeviceParameter);
  const quality = input.qualityParameters.map(qualityAsDeviceParameter);
  for (const problem of deviceParameterProblems(quality, 'qualityParameters')) {
    problems.add(authorizeVariant[problem.token] ?? problem.token, problem.path);
  }
  report('qualityParameters', parameterSetProblems([{ source: 'order', parameters: orderQuality }], quality, 'authorize'));
  const knownQuality = new Set(orderQuality.map((parameter) => parameter.parameterId));
  for (const parameter of quality) {
    if (!knownQuality.has(parameter.parameterId))
      problems.add('invalidValueInput', `qualityParameters.${parameter.parameterId}`, 'The order has no such quality parameter');
  }
}

export function checkTracking(tracking: TAuthorizeRequest['tracking'], problems: ErrorCollector): void {
  const seen = new Set<string>();
  tracking.forEach((field, index) => {
    if (seen.has(field.fieldName)) problems.add('trackingFieldDuplicate', `tracking[${index}].fieldName`);
    seen.add(field.fieldName);
  });
}

/** Every listed user exists and, when the order names its users, is one of them. */
export function checkAuthorizedUsers(
  usernames: string[],
  knownUsers: Set<string>,
  order: OrderRecord | undefined,
  problems: ErrorCollector,
): void {
  const allowed = order ? order.authorized_users.map(usernameKey) : [];
  usernames.forEach((name, index) => {
    const key = usernameKey(name);
    if (!knownUsers.has(key)) problems.add('userNotPresent', `authorizedUserList[${index}]`);
    else if (allowed.length > 0 && !allowed.includes(key))
      problems.add('authorizedUserNotInOrder', `authorizedUserList[${index}]`);
  });
}

/** The order's serial numbers are sound and enough are left for `quantity`. */
export function checkSerialization(
  order: Pick<OrderRecord, 'serial_type' | 'serial_start' | 'serial_end' | 'serial_next'>,
  quantity: number,
  problems: ErrorCollector,
): void {
  const start = Number(order.serial_start);
  const end = Number(order.serial_end);
  const next = Number(order.serial_next);
  const sound =
    (order.serial_type === 'Dec' || order.serial_type === 'Hex') &&
    [start, end, next].every(Number.isSafeInteger) &&
    start <= end &&
    next >= start;
  if (!sound) problems.add('serializationHasError', 'orderId');
  else if (next > end) problems.add('serializationOutOfNumbers', 'quantity');
  else if (quantity > 0 && next + quantity - 1 > end)
    problems.add('serializationDoesNotHaveEnoughNumbersForQuantity', 'quantity', `${end - next + 1} serial numbers are left`);
}

/**
 * Why the atomic take refused although the checks passed: another request took the quantity
 * (or the serial numbers) first, or the order was revoked or expired in between.
 */
export function whyTakeRefused(fresh: OrderRecord | undefined, quantity: number, now: string, problems: ErrorCollector): void {
  if (!fresh || fresh.revoked === 1) {
    problems.add('orderAlreadyRevoked', 'orderId');
    return;
  }
  if (fresh.expires_at && fresh.expires_at <= now) problems.add('orderHasExpired', 'orderId');
  const remaining = remainingQuantity(fresh);
  if (remaining <= 0) problems.add('orderHasNoMoreQuantity', 'quantity');
  else if (quantity > remaining) problems.add('quantityExceedsAllottedAmount', 'quantity');
  if (isSerialized(fresh)) checkSerialization(fresh, quantity, problems);
}
