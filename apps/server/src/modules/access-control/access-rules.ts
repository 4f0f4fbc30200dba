import { roleCodeGrants, roleCodeNeedsEscalation, type TAccessConstraint, type TAccessRoleCode } from '@manifold/contract';
import { addressInRanges } from './ip-ranges.js';

/**
 * The constraints that gate administrators' calls only (packages/contract's permissions: every
 * row naming them is `admin`): a member of a role granting one holds it only while ADMIN.
 */
export const adminOnlyConstraints: ReadonlySet<TAccessConstraint> = new Set<TAccessConstraint>([
  'audit-access',
  'security-config',
  'user-management',
]);

export interface PolicyRule {
  policyName: string;
  constraints: readonly TAccessConstraint[];
  ranges: readonly string[];
}

export interface RoleRule {
  roleCode: TAccessRoleCode;
  constraintName: TAccessConstraint;
  memberIds: readonly number[];
}

export interface AccessRequest {
  userId: number;
  sourceIp: string;
  escalated: boolean;
}

export type AccessDecision =
  { allowed: true } | { allowed: false; reason: 'network' | 'membership' | 'escalation'; description: string };

/**
 * Whether the access controls allow a caller one constraint:
 * - network: when any policy names the constraint, the caller's address must lie in the ranges
 *   of one of those policies;
 * - membership: when any access role names the constraint, the caller must be a member of one of
 *   them whose code grants it, and a `-webauth` code also needs an escalated session.
 * A constraint no policy and no role names is not restricted.
 */
export function decideAccess(
  constraint: TAccessConstraint,
  policies: readonly PolicyRule[],
  roles: readonly RoleRule[],
  who: AccessRequest,
): AccessDecision {
  const naming = policies.filter((policy) => policy.constraints.includes(constraint));
  if (naming.length > 0 && !naming.some((policy) => addressInRanges(who.sourceIp, policy.ranges))) {
    return {
      allowed: false,
      reason: 'network',
      description: `Access controls refuse ${constraint}: ${who.sourceIp} is outside the networks of ${naming.map((p) => p.policyName).join(', ')}`,
    };
  }
  const granting = roles.filter((role) => role.constraintName === constraint && roleCodeGrants(role.roleCode, constraint));
  if (granting.length === 0) return { allowed: true };
  const mine = granting.filter((role) => role.memberIds.includes(who.userId));
  if (mine.length === 0) {
    return {
      allowed: false,
      reason: 'membership',
      description: `Access controls refuse ${constraint}: you hold no access role granting it`,
    };
  }
  if (mine.some((role) => !roleCodeNeedsEscalation(role.roleCode)) || who.escalated) return { allowed: true };
  return {
    allowed: false,
    reason: 'escalation',
    description: `Access controls refuse ${constraint}: your access role needs a session escalated with your security key`,
  };
}
