import type { TGroup, TGroupAddRequest, TGroupEditRequest, TPage, TPageQuery } from '@manifold/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository, usernameKey } from '../users/users.repository.js';
import { GroupsRepository, groupNameKey } from './groups.repository.js';

export class GroupsService {
  constructor(private readonly database: Database) {}

  private groups(db: Kysely<DB> = this.database.db): GroupsRepository {
    return new GroupsRepository(db, this.database.dialect);
  }

  list(page: TPageQuery, search?: string): Promise<TPage<TGroup>> {
    return this.groups().list(page, search);
  }

  async add(input: TGroupAddRequest, caller: Caller): Promise<TGroup> {
    const name = input.name?.trim() ?? '';
    if (!name) throw new AppError('groupNameEmpty', { field: 'name' });
    return this.uniquely(() =>
      this.database.transaction(async (trx) => {
        const groups = this.groups(trx);
        if (await groups.findByName(name)) throw new AppError('groupNameTaken', { field: 'name' });
        const memberIds = await this.memberIds(trx, input.members ?? []);
        const now = isoNow();
        const id = await groups.insert({
          name,
          name_key: groupNameKey(name),
          description: input.description?.trim() ?? '',
          created_at: now,
          updated_at: now,
        });
        await groups.replaceMembers(id, memberIds);
        await this.audit(trx, caller, 'groupAdded', name, { members: input.members ?? [] });
        return (await groups.get(id))!;
      }),
    );
  }

  async edit(input: TGroupEditRequest, caller: Caller): Promise<TGroup> {
    const name = input.name?.trim();
    if (name !== undefined && !name) throw new AppError('groupNameEmpty', { field: 'name' });
    return this.uniquely(() =>
      this.database.transaction(async (trx) => {
        const groups = this.groups(trx);
        const group = await groups.findById(input.userGroupId);
        if (!group) throw new AppError('groupNotPresent', { field: 'userGroupId' });
        if (name !== undefined && groupNameKey(name) !== group.name_key && (await groups.findByName(name))) {
          throw new AppError('groupNameTaken', { field: 'name' });
        }
        await groups.update(group.id, {
          ...(name !== undefined ? { name, name_key: groupNameKey(name) } : {}),
          ...(input.description !== undefined ? { description: input.description.trim() } : {}),
          updated_at: isoNow(),
        });
        if (input.members !== undefined) await groups.replaceMembers(group.id, await this.memberIds(trx, input.members));
        await this.audit(trx, caller, 'groupEdited', name ?? group.name, {
          ...(input.members !== undefined ? { members: input.members } : {}),
        });
        return (await groups.get(group.id))!;
      }),
    );
  }

  async delete(input: { userGroupId: number }, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const groups = this.groups(trx);
      const group = await groups.findById(input.userGroupId);
      if (!group) throw new AppError('groupNotPresent', { field: 'userGroupId' });
      await groups.delete(group.id);
      await this.audit(trx, caller, 'groupDeleted', group.name);
    });
  }

  private async memberIds(trx: Kysely<DB>, usernames: string[]): Promise<number[]> {
    const ids = await new UsersRepository(trx, this.database.dialect).findIdsByUsernames(usernames);
    const missing = usernames.filter((username) => !ids.has(usernameKey(username)));
    if (missing.length > 0) {
      throw new AppError('userNotPresent', { field: 'members', description: `Unknown users: ${missing.join(', ')}` });
    }
    return [...new Set(ids.values())];
  }

  private async uniquely<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('groupNameTaken', { field: 'name' });
      throw error;
    }
  }

  private audit(
    trx: Kysely<DB>,
    caller: Caller,
    type: 'groupAdded' | 'groupEdited' | 'groupDeleted',
    subject: string,
    details?: Record<string, unknown>,
  ): Promise<void> {
    return new AuditRepository(trx, this.database.dialect).recordBy(caller, type, subject, details);
  }
}
