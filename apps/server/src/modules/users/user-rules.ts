import { type ErrorToken, isKnownTimeZone, profileLanguages, roles, type TRole } from '@manifold/contract';
import type { ErrorCollector } from '../../lib/app-error.js';
import { isCommonPassword } from './common-passwords.js';

export const minimumPasswordLength = 8;

const emailPattern = /^[^\s@]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

export function isRole(value: string): value is TRole {
  return (roles as readonly string[]).includes(value);
}

export interface ProfileFields {
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
  role?: string | undefined;
  timeZone?: string | undefined;
  language?: string | undefined;
}

type Presence = 'required' | 'ifGiven';

/**
 * §5's rules for profile fields. `required` (add): every field must be there. `ifGiven` (edit):
 * a field left out keeps its value, a field sent must be valid.
 */
export function checkProfileFields(fields: ProfileFields, presence: Presence, problems: ErrorCollector): void {
  const check = (value: string | undefined, field: string, token: ErrorToken, valid: (v: string) => boolean = () => true) => {
    if (value === undefined && presence === 'ifGiven') return;
    const trimmed = value?.trim() ?? '';
    if (!trimmed || !valid(trimmed)) problems.add(token, field);
  };
  check(fields.firstName, 'firstName', 'userFirstNameEmpty');
  check(fields.lastName, 'lastName', 'userLastNameEmpty');
  if (fields.email !== undefined || presence === 'required') {
    const email = fields.email?.trim() ?? '';
    if (!email) problems.add('userEmailEmpty', 'email');
    else if (!emailPattern.test(email)) problems.add('userEmailInvalid', 'email');
  }
  check(fields.role, 'role', 'userRoleEmpty', isRole);
  check(fields.timeZone, 'timeZone', 'userTimeZoneEmpty', isKnownTimeZone);
  check(fields.language, 'language', 'userLanguageUndefined', (v) => (profileLanguages as readonly string[]).includes(v));
}

export function checkNewPassword(password: string, problems: ErrorCollector): void {
  if ([...password].length < minimumPasswordLength) problems.add('passwordTooShort', 'password');
  else if (isCommonPassword(password)) problems.add('passwordTooCommon', 'password');
}
