import type { Kysely } from 'kysely';
import type { TGroup, TPage, TPageQuery } from '@manifold/contract';
import { containsIgnoringCase, type Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB, GroupRow } from '../../db/schema.js';
import { usernameOrder } from '../users/users.repository.js';

export function groupNameKey(name: string): string {
  return name.trim().toLowerCase();
}

export class GroupsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  findById(id: number): Promise<GroupRow | undefined> {
    return this.db.selectFrom('user_groups').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByName(name: string): Promise<GroupRow | undefined> {
    return this.db.selectFrom('user_groups').selectAll().where('name_key', '=', groupNameKey(name)).executeTakeFirst();
  }

  async list(page: TPageQuery, search?: string): Promise<TPage<TGroup>> {
    let query = this.db.selectFrom('user_groups');
    const term = search?.trim();
    if (term) query = query.where(containsIgnoringCase('name_key', term));
    return paginate(
      query,
      page,
      (base) => base.selectAll().orderBy('name_key'),
      async (rows) => {
        const members = await this.membersOf(rows.map((row) => row.id));
        return rows.map((row) => toGroup(row, members.get(row.id) ?? []));
      },
    );
  }

  async get(id: number): Promise<TGroup | undefined> {
    const row = await this.findById(id);
    if (!row) return undefined;
    const members = await this.membersOf([id]);
    return toGroup(row, members.get(id) ?? []);
  }

  insert(row: Omit<GroupRow, 'id'>): Promise<number> {
    return this.dialect.insertId(this.db, 'user_groups', row);
  }

  async update(id: number, changes: Partial<Omit<GroupRow, 'id'>>): Promise<void> {
    await this.db.updateTable('user_groups').set(changes).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('user_groups').where('id', '=', id).execute();
  }

  async replaceMembers(groupId: number, userIds: number[]): Promise<void> {
    await this.db.deleteFrom('user_group_members').where('group_id', '=', groupId).execute();
    if (userIds.length === 0) return;
    await this.db
      .insertInto('user_group_members')
      .values(userIds.map((userId) => ({ group_id: groupId, user_id: userId })))
      .execute();
  }

  /** Usernames per group, sorted; one query for a whole page of groups. */
  private async membersOf(groupIds: number[]): Promise<Map<number, string[]>> {
    const members = new Map<number, string[]>();
    if (groupIds.length === 0) return members;
    const rows = await this.db
      .selectFrom('user_group_members')
      .innerJoin('users', 'users.id', 'user_group_members.user_id')
      .select(['user_group_members.group_id', 'users.username'])
      .where('user_group_members.group_id', 'in', groupIds)
      .orderBy(usernameOrder(this.db))
      .orderBy('users.id')
      .execute();
    for (const row of rows) {
      const list = members.get(row.group_id) ?? [];
      list.push(row.username);
      members.set(row.group_id, list);
    }
    return members;
  }
}

function toGroup(row: GroupRow, members: string[]): TGroup {
  return {
    userGroupId: row.id,
    name: row.name,
    description: row.description,
    members,
    dateCreated: row.created_at,
  };
}
