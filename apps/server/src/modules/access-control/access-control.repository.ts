import type { Kysely } from 'kysely';
import {
  roleCodeGrants,
  type TAccessConstraint,
  type TAccessControl,
  type TAccessRole,
  type TAccessRoleCode,
  type TPage,
  type TPageQuery,
} from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { AccessControlRow, AccessRoleRow } from '../../db/schema-security.js';
import { usernameOrder } from '../users/users.repository.js';
import { adminOnlyConstraints, type PolicyRule, type RoleRule } from './access-rules.js';

export function policyNameKey(name: string): string {
  return name.trim().toLowerCase();
}

function list<T extends string>(text: string): T[] {
  return text ? (text.split(',') as T[]) : [];
}

function toAccessControl(row: AccessControlRow): TAccessControl {
  return {
    accessControlId: row.id,
    policyName: row.policy_name,
    constraints: list<TAccessConstraint>(row.constraints),
    incomingIpAddresses: list(row.ip_ranges),
  };
}

/** Access policies and access roles with their members. */
export class AccessControlRepository {
  constructor(private readonly db: Kysely<DB>) {}

  listPolicies(page: TPageQuery): Promise<TPage<TAccessControl>> {
    return paginate(
      this.db.selectFrom('access_controls'),
      page,
      (base) => base.selectAll().orderBy('policy_name_key'),
      (rows) => rows.map(toAccessControl),
    );
  }

  findPolicy(id: string): Promise<AccessControlRow | undefined> {
    return this.db.selectFrom('access_controls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findPolicyByName(name: string): Promise<AccessControlRow | undefined> {
    return this.db
      .selectFrom('access_controls')
      .selectAll()
      .where('policy_name_key', '=', policyNameKey(name))
      .executeTakeFirst();
  }

  async insertPolicy(row: AccessControlRow): Promise<TAccessControl> {
    await this.db.insertInto('access_controls').values(row).execute();
    return toAccessControl(row);
  }

  async updatePolicy(row: AccessControlRow): Promise<TAccessControl> {
    const { id, ...fields } = row;
    await this.db.updateTable('access_controls').set(fields).where('id', '=', id).execute();
    return toAccessControl(row);
  }

  async deletePolicy(id: string): Promise<void> {
    await this.db.deleteFrom('access_controls').where('id', '=', id).execute();
  }

  listRoles(page: TPageQuery): Promise<TPage<TAccessRole>> {
    return paginate(
      this.db.selectFrom('access_roles'),
      page,
      (base) => base.selectAll().orderBy('constraint_name').orderBy('role_code').orderBy('created_at').orderBy('id'),
      (rows) => this.toAccessRoles(rows),
    );
  }

  async getRole(id: string): Promise<TAccessRole | undefined> {
    const row = await this.findRole(id);
    return row ? (await this.toAccessRoles([row]))[0] : undefined;
  }

  private async toAccessRoles(rows: AccessRoleRow[]): Promise<TAccessRole[]> {
    const members = await this.memberNames(rows.map((row) => row.id));
    return rows.map((row) => ({
      accessRoleId: row.id,
      roleCode: row.role_code as TAccessRoleCode,
      constraintName: row.constraint_name as TAccessConstraint,
      roleMembers: members.get(row.id) ?? [],
    }));
  }

  findRole(id: string): Promise<AccessRoleRow | undefined> {
    return this.db.selectFrom('access_roles').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertRole(row: AccessRoleRow, memberIds: number[]): Promise<void> {
    await this.db.insertInto('access_roles').values(row).execute();
    await this.insertMembers(row.id, memberIds);
  }

  /** The role's code and constraint, and its members replaced by `memberIds`. */
  async updateRole(row: AccessRoleRow, memberIds: number[]): Promise<void> {
    const { id, ...fields } = row;
    await this.db.updateTable('access_roles').set(fields).where('id', '=', id).execute();
    await this.db.deleteFrom('access_role_members').where('role_id', '=', id).execute();
    await this.insertMembers(id, memberIds);
  }

  private async insertMembers(roleId: string, memberIds: number[]): Promise<void> {
    await this.db
      .insertInto('access_role_members')
      .values(memberIds.map((userId) => ({ role_id: roleId, user_id: userId })))
      .execute();
  }

  async deleteRole(id: string): Promise<void> {
    await this.db.deleteFrom('access_roles').where('id', '=', id).execute();
  }

  /** The policies that name the constraint (constraints are a comma list of fixed names, none a part of another). */
  async policyRules(constraint: TAccessConstraint): Promise<PolicyRule[]> {
    const rows = await this.db
      .selectFrom('access_controls')
      .selectAll()
      .where('constraints', 'like', `%${constraint}%`)
      .execute();
    return rows
      .map(toAccessControl)
      .filter((policy) => policy.constraints.includes(constraint))
      .map((policy) => ({ policyName: policy.policyName, constraints: policy.constraints, ranges: policy.incomingIpAddresses }));
  }

  /** The roles that name the constraint, with their members' ids. */
  async roleRules(constraint: TAccessConstraint): Promise<RoleRule[]> {
    const rows = await this.db
      .selectFrom('access_roles')
      .leftJoin('access_role_members', 'access_role_members.role_id', 'access_roles.id')
      .select(['access_roles.id', 'access_roles.role_code', 'access_roles.constraint_name', 'access_role_members.user_id'])
      .where('access_roles.constraint_name', '=', constraint)
      .execute();
    const roles = new Map<string, RoleRule & { memberIds: number[] }>();
    for (const row of rows) {
      const role = roles.get(row.id) ?? {
        roleCode: row.role_code as TAccessRoleCode,
        constraintName: row.constraint_name as TAccessConstraint,
        memberIds: [],
      };
      if (row.user_id !== null) role.memberIds.push(Number(row.user_id));
      roles.set(row.id, role);
    }
    return [...roles.values()];
  }

  /**
   * Inside the transaction of a change that takes `leaving.id` out of the holders of constraints
   * (the user deleted, or no longer ADMIN): answers the constraints that user holds through an
   * access role and nobody else would then hold, for the change to be refused.
   *
   * A holder of a constraint is a member of a role granting it, and for the constraints that gate
   * administrators' calls only ({@link adminOnlyConstraints}) an ADMIN one. `leaving.admins` are
   * the ADMIN ids as `UsersRepository.lockAdmins` answered them in this transaction, given when an
   * administrator leaves (`undefined`: a USER leaves, who holds none of those). `leaving.adminOnly`:
   * only those constraints are left (a demotion: the user keeps their other ones).
   *
   * Race-safe as the "at least one ADMIN" rule: the memberships of every role granting one of
   * those constraints are locked until the transaction ends, so that changes racing to remove
   * the last holders of one constraint (deletions, demotions, role edits) run one after the other
   * and the later one sees the earlier one's result. Every such change locks them in the same
   * order (the primary key's), so they wait for each other rather than deadlock.
   */
  async constraintsOnlyHeldBy(
    leaving: { id: number; admins: readonly number[] | undefined; adminOnly: boolean },
    dialect: Dialect,
  ): Promise<TAccessConstraint[]> {
    const holds = (constraint: TAccessConstraint, userId: number) =>
      !adminOnlyConstraints.has(constraint) || (leaving.admins?.includes(userId) ?? false);
    const mine = await this.db
      .selectFrom('access_role_members')
      .innerJoin('access_roles', 'access_roles.id', 'access_role_members.role_id')
      .select(['access_roles.role_code', 'access_roles.constraint_name'])
      .where('access_role_members.user_id', '=', leaving.id)
      .execute();
    const held = new Set(
      mine
        .filter((row) => roleCodeGrants(row.role_code as TAccessRoleCode, row.constraint_name as TAccessConstraint))
        .map((row) => row.constraint_name as TAccessConstraint)
        .filter((constraint) => !leaving.adminOnly || adminOnlyConstraints.has(constraint))
        .filter((constraint) => holds(constraint, leaving.id)),
    );
    if (held.size === 0) return [];
    const roles = (
      await this.db
        .selectFrom('access_roles')
        .select(['id', 'role_code', 'constraint_name'])
        .where('constraint_name', 'in', [...held])
        .execute()
    ).filter((role) => roleCodeGrants(role.role_code as TAccessRoleCode, role.constraint_name as TAccessConstraint));
    if (roles.length === 0) return [];
    const members = await dialect
      .forUpdate(
        this.db
          .selectFrom('access_role_members')
          .select(['role_id', 'user_id'])
          .where(
            'role_id',
            'in',
            roles.map((role) => role.id),
          )
          .orderBy('role_id')
          .orderBy('user_id'),
      )
      .execute();
    const constraintOf = new Map(roles.map((role) => [role.id, role.constraint_name as TAccessConstraint]));
    const stillHeld = new Set<TAccessConstraint>();
    for (const member of members) {
      const constraint = constraintOf.get(member.role_id)!;
      const userId = Number(member.user_id);
      if (userId !== leaving.id && holds(constraint, userId)) stillHeld.add(constraint);
    }
    return [...held].filter((constraint) => !stillHeld.has(constraint)).sort();
  }

  private async memberNames(roleIds: string[]): Promise<Map<string, string[]>> {
    const members = new Map<string, string[]>();
    if (roleIds.length === 0) return members;
    const rows = await this.db
      .selectFrom('access_role_members')
      .innerJoin('users', 'users.id', 'access_role_members.user_id')
      .select(['access_role_members.role_id', 'users.username'])
      .where('access_role_members.role_id', 'in', roleIds)
      .orderBy(usernameOrder(this.db))
      .orderBy('users.id')
      .execute();
    for (const row of rows) members.set(row.role_id, [...(members.get(row.role_id) ?? []), row.username]);
    return members;
  }
}
