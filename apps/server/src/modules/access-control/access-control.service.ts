import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type {
  TAccessConstraint,
  TAccessControl,
  TAccessControlAddRequest,
  TAccessControlEditRequest,
  TAccessRole,
  TAccessRoleAddRequest,
  TAccessRoleEditRequest,
  TPage,
  TPageQuery,
} from '@manifold/contract';
import { classificationConstraint, roleCodeGrants, type TClassification } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository, usernameKey } from '../users/users.repository.js';
import { AccessControlRepository, policyNameKey } from './access-control.repository.js';
import { decideAccess } from './access-rules.js';
import { parseIpRange } from './ip-ranges.js';

/**
 * Access policies (which networks may exercise which constraints) and access roles (who holds a
 * constraint), enforced on every call their constraints gate (docs/security-keys-and-access.md).
 */
/** What file areas need of access controls (design package files, secure-repository folders). */
export type ClassificationGate = Pick<AccessControlService, 'requireForLabel'>;

export class AccessControlService {
  constructor(private readonly database: Database) {}

  private repository(db: Kysely<DB> = this.database.db): AccessControlRepository {
    return new AccessControlRepository(db);
  }

  private audit(db: Kysely<DB> = this.database.db): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }

  /**
   * Refuses (403 `accessConstraintFailed`, or `escalationRequired` for a `-webauth` role held
   * without escalation; audited) a caller the access controls do not allow this constraint.
   */
  async require(caller: Caller, constraint: TAccessConstraint): Promise<void> {
    const repository = this.repository();
    const decision = decideAccess(
      constraint,
      await repository.policyRules(constraint),
      await repository.roleRules(constraint),
      caller,
    );
    if (decision.allowed) return;
    await this.audit().recordBy(caller, 'accessConstraintRefused', constraint, { reason: decision.reason });
    // a -webauth role held without escalation: the console's escalation prompt answers this token
    throw new AppError(decision.reason === 'escalation' ? 'escalationRequired' : 'accessConstraintFailed', {
      description: decision.description,
    });
  }

  /**
   * Gates moving a labelled file (CUI, FCI) in one direction: any area that stores files calls
   * this with the file's `classification` before an upload is stored or a download is opened.
   */
  async requireForLabel(caller: Caller, label: TClassification | null, direction: 'upload' | 'download'): Promise<void> {
    const constraint = classificationConstraint(label, direction);
    if (constraint) await this.require(caller, constraint);
  }

  listPolicies(page: TPageQuery): Promise<TPage<TAccessControl>> {
    return this.repository().listPolicies(page);
  }

  listRoles(page: TPageQuery): Promise<TPage<TAccessRole>> {
    return this.repository().listRoles(page);
  }

  async addPolicy(input: TAccessControlAddRequest, caller: Caller): Promise<TAccessControl> {
    return this.savePolicy(input, undefined, caller);
  }

  /** Changes a policy (all its fields given again); the same checks as adding, under the same lock-out guard. */
  async editPolicy(input: TAccessControlEditRequest, caller: Caller): Promise<TAccessControl> {
    return this.savePolicy(input, input.accessControlId, caller);
  }

  private async savePolicy(input: TAccessControlAddRequest, id: string | undefined, caller: Caller): Promise<TAccessControl> {
    const ranges = input.incomingIpAddresses.map((text) => text.trim());
    const bad = ranges.filter((text) => parseIpRange(text) === null);
    if (bad.length > 0) {
      throw new AppError('accessControlInvalid', {
        field: 'incomingIpAddresses',
        description: `Not an address or CIDR range: ${bad.join(', ')}`,
      });
    }
    const constraints = [...new Set(input.constraints)];
    try {
      return await this.database.transaction(async (trx) => {
        const repository = this.repository(trx);
        const existing = id === undefined ? undefined : await repository.findPolicy(id);
        if (id !== undefined && !existing) throw new AppError('accessControlNotPresent', { field: 'accessControlId' });
        const sameName = await repository.findPolicyByName(input.policyName);
        if (sameName && sameName.id !== id) throw new AppError('accessControlNameTaken', { field: 'policyName' });
        const row = {
          id: existing?.id ?? randomUUID(),
          policy_name: input.policyName,
          policy_name_key: policyNameKey(input.policyName),
          constraints: constraints.join(','),
          ip_ranges: ranges.join(','),
          created_at: existing?.created_at ?? isoNow(),
        };
        const saved = existing ? await repository.updatePolicy(row) : await repository.insertPolicy(row);
        await this.keepCallerIn(trx, caller);
        await this.audit(trx).recordBy(caller, existing ? 'accessControlEdited' : 'accessControlAdded', input.policyName, {
          constraints,
          incomingIpAddresses: ranges,
          ...(existing && existing.policy_name !== input.policyName ? { previousName: existing.policy_name } : {}),
        });
        return saved;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('accessControlNameTaken', { field: 'policyName' });
      throw error;
    }
  }

  async deletePolicy(input: { accessControlId: string }, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      const found = await repository.findPolicy(input.accessControlId);
      if (!found) throw new AppError('accessControlNotPresent', { field: 'accessControlId' });
      await repository.deletePolicy(found.id);
      await this.keepCallerIn(trx, caller);
      await this.audit(trx).recordBy(caller, 'accessControlDeleted', found.policy_name);
    });
  }

  async addRole(input: TAccessRoleAddRequest, caller: Caller): Promise<TAccessRole> {
    return this.saveRole(input, undefined, caller);
  }

  /** Changes a role: code, constraint and members (the list given replaces the stored one). */
  async editRole(input: TAccessRoleEditRequest, caller: Caller): Promise<TAccessRole> {
    return this.saveRole(input, input.accessRoleId, caller);
  }

  private async saveRole(input: TAccessRoleAddRequest, id: string | undefined, caller: Caller): Promise<TAccessRole> {
    if (!roleCodeGrants(input.roleCode, input.constraintName)) {
      throw new AppError('accessRoleInvalid', {
        field: 'roleCode',
        description: `The role code ${input.roleCode} does not grant ${input.constraintName}`,
      });
    }
    return this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      const existing = id === undefined ? undefined : await repository.findRole(id);
      if (id !== undefined && !existing) throw new AppError('accessRoleNotPresent', { field: 'accessRoleId' });
      const ids = await new UsersRepository(trx, this.database.dialect).findIdsByUsernames(input.roleMembers);
      const missing = input.roleMembers.filter((username) => !ids.has(usernameKey(username)));
      if (missing.length > 0) {
        throw new AppError('userNotPresent', { field: 'roleMembers', description: `Unknown users: ${missing.join(', ')}` });
      }
      const row = {
        id: existing?.id ?? randomUUID(),
        role_code: input.roleCode,
        constraint_name: input.constraintName,
        created_at: existing?.created_at ?? isoNow(),
      };
      const memberIds = [...new Set(ids.values())];
      if (existing) await repository.updateRole(row, memberIds);
      else await repository.insertRole(row, memberIds);
      await this.keepCallerIn(trx, caller);
      await this.audit(trx).recordBy(caller, existing ? 'accessRoleEdited' : 'accessRoleAdded', input.roleCode, {
        constraintName: input.constraintName,
        roleMembers: input.roleMembers,
      });
      return (await repository.getRole(row.id))!;
    });
  }

  async deleteRole(input: { accessRoleId: string }, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const repository = this.repository(trx);
      const found = await repository.findRole(input.accessRoleId);
      if (!found) throw new AppError('accessRoleNotPresent', { field: 'accessRoleId' });
      await repository.deleteRole(found.id);
      await this.keepCallerIn(trx, caller);
      await this.audit(trx).recordBy(caller, 'accessRoleDeleted', found.role_code, { constraintName: found.constraint_name });
    });
  }

  /** In the change's transaction: the administrator making it must still hold security-config afterwards. */
  private async keepCallerIn(trx: Kysely<DB>, caller: Caller): Promise<void> {
    const repository = this.repository(trx);
    const constraint = 'security-config';
    const decision = decideAccess(
      constraint,
      await repository.policyRules(constraint),
      await repository.roleRules(constraint),
      caller,
    );
    if (!decision.allowed) throw new AppError('accessControlWouldLockOut');
  }
}
