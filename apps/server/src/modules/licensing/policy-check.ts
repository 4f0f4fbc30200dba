import type { z } from 'zod';
import {
  breakagePolicies,
  deviceParameterProblems,
  errorDescriptions,
  type ErrorToken,
  keyRoles,
  type TAuthorizedPolicyList,
  type TDeviceParameter,
  type TKeyRole,
  type TQualityParameter,
  ZAuthorizedPolicyList,
  formatPath,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { throwAll } from '../packages/device-parameters.js';

export const POLICY_FIELD = 'authorizationAuthorizedPolicyList';

const error = (token: ErrorToken, field: string, description?: string) =>
  new AppError(token, { field, description: `${field}: ${description ?? errorDescriptions[token]}` });

function shapeErrors(issues: readonly z.core.$ZodIssue[]): AppError[] {
  return issues.slice(0, 100).map((issue) => {
    const field = formatPath(issue.path, POLICY_FIELD);
    return error('authorizedPolicyListNotFormattedCorrectly', field, issue.message);
  });
}

/** A quality parameter in the device-parameter model, so the same narrowing rules apply to it. */
export function qualityAsDeviceParameter(parameter: TQualityParameter): TDeviceParameter {
  return {
    parameterId: parameter.id,
    type: parameter.type,
    adjust: parameter.adjust,
    encrypt: parameter.encrypt,
    required: parameter.required,
    exclusive: false,
    choicePresent: parameter.choiceList !== undefined,
    ...(parameter.low !== undefined ? { low: parameter.low } : {}),
    ...(parameter.high !== undefined ? { high: parameter.high } : {}),
    ...(parameter.choiceList !== undefined ? { choiceList: parameter.choiceList } : {}),
    ...(parameter.valueList !== undefined ? { valueList: parameter.valueList } : {}),
    ...(parameter.resetValue !== undefined ? { resetValue: parameter.resetValue } : {}),
  };
}

/** The serial numbers of this instance's own certificates (hex, lower case, no colons). */
export function normalizeSerial(serial: string): string {
  return serial
    .replace(/:/g, '')
    .toLowerCase()
    .replace(/^0+(?=.)/, '');
}

export interface CheckedPolicy {
  policy: TAuthorizedPolicyList;
  licenseeKeySN: string;
  issuerKeySN: string | null;
  licensorKeySN: string | null;
}

/**
 * Steps 1–3 of the policy checks (see `policy.ts` in contract): shape, key roles, the rules
 * between fields. Every problem of a step is answered together; a later step runs only when the
 * earlier ones passed (a malformed list has no meaningful rules to check).
 */
export function checkPolicy(input: unknown, ownSerials: string[], now: Date): CheckedPolicy {
  if (input === undefined || input === null) {
    throw error('authorizedPolicyListNotFormattedCorrectly', POLICY_FIELD, 'authorizationAuthorizedPolicyList is required');
  }
  const parsed = ZAuthorizedPolicyList.safeParse(input);
  if (!parsed.success) {
    throwAll(shapeErrors(parsed.error.issues));
    throw error('authorizedPolicyListNotFormattedCorrectly', POLICY_FIELD);
  }
  const policy = parsed.data;

  // key roles
  const roleErrors: AppError[] = [];
  const byRole = new Map<TKeyRole, string>();
  policy.keyRoles.forEach((entry, index) => {
    const field = `${POLICY_FIELD}.keyRoles[${index}].role`;
    if (!(keyRoles as readonly string[]).includes(entry.role)) {
      roleErrors.push(
        error('authorizedPolicyListUnknownKeyRole', field, `unknown key role "${entry.role}"; expected ${keyRoles.join(', ')}`),
      );
      return;
    }
    if (byRole.has(entry.role as TKeyRole))
      roleErrors.push(error('authorizedPolicyListInvalid', field, `key role ${entry.role} appears twice`));
    byRole.set(entry.role as TKeyRole, normalizeSerial(entry.keySerialNumber));
  });
  throwAll(roleErrors);
  const licensee = byRole.get('licensee');
  if (licensee === undefined || !ownSerials.map(normalizeSerial).includes(licensee)) {
    throw error(
      'authorizedPolicyLicenseeRoleMismatch',
      `${POLICY_FIELD}.keyRoles`,
      licensee === undefined
        ? 'the policy names no licensee key'
        : 'the licensee key is not this server\u2019s signing or encryption certificate',
    );
  }

  // rules between fields
  const rules: AppError[] = [];
  const invalid = (field: string, description: string) =>
    rules.push(error('authorizedPolicyListInvalid', `${POLICY_FIELD}.${field}`, description));
  if (policy.expiration !== undefined && Date.parse(policy.expiration) <= now.getTime()) {
    invalid('expiration', 'the expiration is in the past');
  }
  const { serialization, breakage } = policy;
  if (serialization) {
    if (serialization.end < serialization.start) invalid('serialization.end', 'end is before start');
    else if (serialization.end - serialization.start + 1 < policy.quantity)
      invalid('serialization', `the range holds ${serialization.end - serialization.start + 1} numbers, fewer than the quantity`);
    if (!Number.isSafeInteger(serialization.end)) invalid('serialization.end', 'end is too large');
  }
  if (breakage.policy === 'Percentage' && (breakage.value === undefined || breakage.value > 100)) {
    invalid('breakage.value', 'Percentage needs a value from 0 to 100');
  } else if (
    breakage.policy === 'Quantity' &&
    (breakage.value === undefined || !Number.isInteger(breakage.value) || breakage.value > policy.quantity)
  ) {
    invalid('breakage.value', 'Quantity needs a whole number of parts up to the quantity');
  } else if ((breakage.policy === 'Strict' || breakage.policy === 'Trusted') && breakage.value !== undefined) {
    invalid('breakage.value', `${breakage.policy} takes no value (policies: ${breakagePolicies.join(', ')})`);
  }
  if (policy.revokes && policy.revokes.orderNumber.length === 0) invalid('revokes.orderNumber', 'revokes needs an orderNumber');
  for (const problem of deviceParameterProblems(policy.deviceParameters, `${POLICY_FIELD}.deviceParameters`)) {
    rules.push(error(problem.token, problem.path));
  }
  const quality = policy.qualityParameters.map(qualityAsDeviceParameter);
  for (const problem of deviceParameterProblems(quality, `${POLICY_FIELD}.qualityParameters`)) {
    rules.push(error(problem.token, problem.path));
  }
  throwAll(rules);

  return {
    policy,
    licenseeKeySN: licensee,
    issuerKeySN: byRole.get('issuer') ?? null,
    licensorKeySN: byRole.get('licensor') ?? null,
  };
}
