/**
 * Security keys (WebAuthn), the escalated session, and access controls (spec §3 Authenticator and
 * the access controls and access roles of its local mock, §4 escalated session, §7
 * `authenticators/*`, `authenticators/escalate-login`). Error tokens, audit kinds, permission
 * rows and request/response schemas; merged into `manifoldErrorTokens`, `auditEventTypes` and
 * `permissions`.
 */
import { z } from 'zod';
import { identifierTokens, ZId } from './identifiers.js';

export const securityErrorTokens = {
  authenticatorNotPresent: 'The security key does not exist',
  authenticatorChallengeInvalid: 'The security-key challenge is unknown, used or expired; start again',
  authenticatorResponseInvalid: 'The security key answer could not be verified',
  authenticatorAlreadyRegistered: 'This security key is already registered',
  authenticatorNameInvalid: 'A security key name has 1 to 64 characters',
  escalationRequired: 'This action needs a fresh confirmation with your security key',
  accessConstraintFailed: 'Access controls refuse this action',
  accessControlNotPresent: 'The access policy does not exist',
  accessControlNameTaken: 'An access policy with this name already exists',
  accessControlInvalid: 'An access policy needs a name, at least one constraint and valid address ranges',
  accessRoleNotPresent: 'The access role does not exist',
  accessRoleInvalid: 'The role code does not grant this constraint, or a member does not exist',
  accessControlWouldLockOut: 'This change would refuse you security-config yourself; keep a way back in',
} as const;

export const securityAuditEventTypes = [
  'authenticatorAdded',
  'authenticatorDeleted',
  'sessionEscalated',
  'escalationFailed',
  'escalationPolicyChanged',
  'accessControlAdded',
  'accessControlEdited',
  'accessControlDeleted',
  'accessRoleAdded',
  'accessRoleEdited',
  'accessRoleDeleted',
  'accessConstraintRefused',
] as const;

// ——— access controls ———

/** The constraints an access policy and an access role name (spec §3, local mock). */
export const accessConstraints = [
  'audit-access',
  'security-config',
  'user-management',
  'cui-upload',
  'cui-download',
  'fci-upload',
  'fci-download',
] as const;
export const ZAccessConstraint = z.enum(accessConstraints);
export type TAccessConstraint = z.infer<typeof ZAccessConstraint>;

/** Role codes of access roles; a `-webauth` variant also needs an escalated session. */
export const accessRoleCodes = [
  'audit-admin',
  'security-admin',
  'user-admin',
  'user',
  'audit-admin-webauth',
  'security-admin-webauth',
  'user-admin-webauth',
  'user-webauth',
] as const;
export const ZAccessRoleCode = z.enum(accessRoleCodes);
export type TAccessRoleCode = z.infer<typeof ZAccessRoleCode>;

/** The constraints each role code may grant (its `-webauth` variant grants the same ones). */
export const roleCodeConstraints: Record<string, readonly TAccessConstraint[]> = {
  'audit-admin': ['audit-access'],
  'security-admin': ['security-config'],
  'user-admin': ['user-management'],
  user: ['cui-upload', 'cui-download', 'fci-upload', 'fci-download'],
};

export function roleCodeNeedsEscalation(code: TAccessRoleCode): boolean {
  return code.endsWith('-webauth');
}

export function roleCodeGrants(code: TAccessRoleCode, constraint: TAccessConstraint): boolean {
  return (roleCodeConstraints[code.replace(/-webauth$/, '')] ?? []).includes(constraint);
}

/**
 * Labels of controlled files: Controlled Unclassified Information and Federal Contract
 * Information. Any area that stores files (design package files, secure-repository folders)
 * keeps one of these (or none) and asks `classificationConstraint` which constraint gates it.
 */
export const classifications = ['CUI', 'FCI'] as const;
export const ZClassification = z.enum(classifications);
export type TClassification = z.infer<typeof ZClassification>;

/** The constraint that gates moving a file with this label in that direction; null: not controlled. */
export function classificationConstraint(
  label: TClassification | null | undefined,
  direction: 'upload' | 'download',
): TAccessConstraint | null {
  if (!label) return null;
  return `${label === 'CUI' ? 'cui' : 'fci'}-${direction}`;
}

export const ZAccessControlId = ZId('accessControlNotPresent');
export const ZAccessRoleId = ZId('accessRoleNotPresent');

const ZIpRange = z.string().trim().min(1).max(64);

export const ZAccessControl = z
  .object({
    accessControlId: z.uuid(),
    policyName: z.string(),
    constraints: z.array(ZAccessConstraint),
    incomingIpAddresses: z.array(z.string()),
  })
  .meta({ id: 'AccessControl' });
export type TAccessControl = z.infer<typeof ZAccessControl>;

export const ZAccessControlAddRequest = z.object({
  policyName: z.string().trim().min(1).max(128),
  constraints: z.array(ZAccessConstraint).min(1).max(accessConstraints.length),
  /** IPv4 or IPv6 addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`). */
  incomingIpAddresses: z.array(ZIpRange).min(1).max(64),
});
export type TAccessControlAddRequest = z.infer<typeof ZAccessControlAddRequest>;

export const ZAccessControlDeleteRequest = z.object({ accessControlId: ZAccessControlId });

/** Changes a policy: its name, constraints and address ranges, all given again. */
export const ZAccessControlEditRequest = ZAccessControlAddRequest.extend({ accessControlId: ZAccessControlId });
export type TAccessControlEditRequest = z.infer<typeof ZAccessControlEditRequest>;

export const ZAccessRole = z
  .object({
    accessRoleId: z.uuid(),
    roleCode: ZAccessRoleCode,
    constraintName: ZAccessConstraint,
    roleMembers: z.array(z.string()),
  })
  .meta({ id: 'AccessRole' });
export type TAccessRole = z.infer<typeof ZAccessRole>;

export const ZAccessRoleAddRequest = z.object({
  roleCode: ZAccessRoleCode,
  constraintName: ZAccessConstraint,
  /** Usernames. */
  roleMembers: z.array(z.string().trim().min(1).max(128)).min(1).max(500),
});
export type TAccessRoleAddRequest = z.infer<typeof ZAccessRoleAddRequest>;

export const ZAccessRoleDeleteRequest = z.object({ accessRoleId: ZAccessRoleId });

/** Changes a role: its code, constraint and members (the new list replaces the old one). */
export const ZAccessRoleEditRequest = ZAccessRoleAddRequest.extend({ accessRoleId: ZAccessRoleId });
export type TAccessRoleEditRequest = z.infer<typeof ZAccessRoleEditRequest>;

// ——— security keys ———

export const ZAuthenticatorId = ZId('authenticatorNotPresent');

export const ZAuthenticator = z
  .object({
    authenticatorId: z.uuid(),
    name: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'Authenticator' });
export type TAuthenticator = z.infer<typeof ZAuthenticator>;

/** WebAuthn options as JSON (`PublicKeyCredentialCreationOptionsJSON` / `…RequestOptionsJSON`), passed to the browser as they are. */
export const ZWebAuthnOptions = z.looseObject({ challenge: z.string() }).meta({ id: 'WebAuthnOptions' });

/** A credential as the browser serialises it (`RegistrationResponseJSON` / `AuthenticationResponseJSON`). */
const ZCredentialJson = z.looseObject({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().max(8192) }),
});

export const ZAuthenticatorAddRequest = z.object({
  /** Blank or over 64 characters: 420 `authenticatorNameInvalid` on `name` (not a bare 400). */
  name: z.string().trim().min(1).max(64).register(identifierTokens, { token: 'authenticatorNameInvalid' }),
  credential: ZCredentialJson,
});
export type TAuthenticatorAddRequest = z.infer<typeof ZAuthenticatorAddRequest>;

export const ZAuthenticatorDeleteRequest = z.object({ authenticatorId: ZAuthenticatorId });

export const ZEscalateLoginRequest = z.object({ credential: ZCredentialJson });
export type TEscalateLoginRequest = z.infer<typeof ZEscalateLoginRequest>;

export const ZEscalateLoginResponse = z.object({ escalated: z.literal(true), escalatedUntil: z.string() });

/**
 * `GET|POST /ui/admin/escalation`: whether sensitive actions need an escalated session from every
 * ADMIN (with or without a key), not only from holders of a security key (issue 15 item 4).
 */
export const ZEscalationPolicy = z.object({ requiredForAdmins: z.boolean() }).meta({ id: 'EscalationPolicy' });
export type TEscalationPolicy = z.infer<typeof ZEscalationPolicy>;
