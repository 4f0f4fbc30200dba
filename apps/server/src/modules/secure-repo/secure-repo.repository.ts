import type { ExpressionBuilder, Insertable, Kysely } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { SecureRepoNodeRow, SecureRepoNodesTable } from '../../db/schema-secure-repo.js';

/** Who looks: a USER sees folders shared with one of their groups; undefined is an ADMIN (sees all). */
export type Viewer = { userId: number } | undefined;

type NodesBuilder = ExpressionBuilder<DB, 'secure_repo_nodes'>;

/** A folder shared with one of the viewer's groups (one EXISTS over sharing rows and memberships). */
function sharedWith(eb: NodesBuilder, userId: number) {
  return eb.exists(
    eb
      .selectFrom('secure_repo_node_groups')
      .innerJoin('user_group_members', 'user_group_members.group_id', 'secure_repo_node_groups.group_id')
      .select('secure_repo_node_groups.node_id')
      .whereRef('secure_repo_node_groups.node_id', '=', 'secure_repo_nodes.id')
      .where('user_group_members.user_id', '=', userId),
  );
}

export class SecureRepoRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  findNode(id: string): Promise<SecureRepoNodeRow | undefined> {
    return this.db.selectFrom('secure_repo_nodes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The node, locked against a concurrent delete until the transaction ends (SQLite: writers run alone). */
  lockNode(id: string): Promise<SecureRepoNodeRow | undefined> {
    return this.dialect.forUpdate(this.db.selectFrom('secure_repo_nodes').selectAll().where('id', '=', id)).executeTakeFirst();
  }

  /**
   * Locks the folders on a path (`/id/id/…/`), one at a time from the top, as `lockNode` locks
   * one; false when one of them is gone. What goes into a folder takes its whole path: a delete
   * of any folder above (which locks that folder and takes everything below it) has committed
   * first and is seen, or waits until what went in committed and takes it too.
   */
  async lockPath(path: string): Promise<boolean> {
    for (const id of path.split('/').filter(Boolean)) {
      if (!(await this.lockNode(id))) return false;
    }
    return true;
  }

  /** Whether the folder is shared with one of the user's groups. */
  async folderSharedWith(folderId: string, userId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('secure_repo_nodes')
      .select('id')
      .where('id', '=', folderId)
      .where((eb) => sharedWith(eb, userId))
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The children of a folder ('' for the top level), folders first, then by name. A USER sees
   * the folders shared with their groups and every file of a folder they see (the caller has
   * checked the folder itself).
   */
  listChildren(parentKey: string, viewer: Viewer, page: TPageQuery): Promise<TPage<SecureRepoNodeRow>> {
    let base = this.db.selectFrom('secure_repo_nodes').where('parent_key', '=', parentKey);
    if (viewer) base = base.where((eb) => eb.or([eb('is_folder', '=', 0), sharedWith(eb, viewer.userId)]));
    return paginate(
      base,
      page,
      (query) => query.selectAll().orderBy('is_folder', 'desc').orderBy('name_key').orderBy('id'),
      (rows) => rows,
    );
  }

  /** Nodes by id, shallowest first (a node's ancestors from its path). */
  async nodesByDepth(ids: string[]): Promise<SecureRepoNodeRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('secure_repo_nodes').selectAll().where('id', 'in', ids).orderBy('depth').execute();
  }

  /** The labels (`CUI`, `FCI`) set on any of these nodes (a node's folders from its path). */
  async labelsOnPath(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('secure_repo_nodes')
      .select('classification')
      .where('id', 'in', ids)
      .where('classification', 'is not', null)
      .execute();
    return rows.map((row) => row.classification!);
  }

  /** The groups each of these folders is shared with, ascending. */
  async groupsOf(folderIds: string[]): Promise<Map<string, number[]>> {
    const groups = new Map<string, number[]>();
    if (folderIds.length === 0) return groups;
    const rows = await this.db
      .selectFrom('secure_repo_node_groups')
      .select(['node_id', 'group_id'])
      .where('node_id', 'in', folderIds)
      .orderBy('group_id')
      .execute();
    for (const row of rows) groups.set(row.node_id, [...(groups.get(row.node_id) ?? []), Number(row.group_id)]);
    return groups;
  }

  /**
   * Those of `ids` that name existing groups. In a transaction they are locked until it ends: a
   * group being deleted is gone already, or is deleted after the sharing rows written here (and
   * takes them with it).
   */
  async existingGroups(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const query = this.db.selectFrom('user_groups').select('id').where('id', 'in', ids).orderBy('id');
    const rows = await (this.db.isTransaction ? this.dialect.forUpdate(query) : query).execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  async nameTaken(parentKey: string, nameKey: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('secure_repo_nodes')
      .select('id')
      .where('parent_key', '=', parentKey)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertNode(row: Insertable<SecureRepoNodesTable>): Promise<void> {
    await this.db.insertInto('secure_repo_nodes').values(row).execute();
  }

  async replaceGroups(folderId: string, groupIds: readonly number[]): Promise<void> {
    await this.db.deleteFrom('secure_repo_node_groups').where('node_id', '=', folderId).execute();
    if (groupIds.length === 0) return;
    await this.db
      .insertInto('secure_repo_node_groups')
      .values(groupIds.map((groupId) => ({ node_id: folderId, group_id: groupId })))
      .execute();
  }

  /** Takes every group outside `kept` away from the folders below the one at `path`. */
  async narrowDescendants(path: string, kept: readonly number[]): Promise<void> {
    const below = this.db.selectFrom('secure_repo_nodes').select('id').where('path', 'like', `${path}_%`);
    let query = this.db.deleteFrom('secure_repo_node_groups').where('node_id', 'in', below);
    if (kept.length > 0) query = query.where('group_id', 'not in', [...kept]);
    await query.execute();
  }

  async updateNode(
    id: string,
    changes: Partial<Pick<SecureRepoNodesTable, 'description' | 'classification' | 'updated_at'>>,
  ): Promise<void> {
    await this.db.updateTable('secure_repo_nodes').set(changes).where('id', '=', id).execute();
  }

  /** The node at `path` and everything below it. */
  subtree(path: string): Promise<Pick<SecureRepoNodeRow, 'id' | 'is_folder' | 'name' | 'storage_key'>[]> {
    return this.db
      .selectFrom('secure_repo_nodes')
      .select(['id', 'is_folder', 'name', 'storage_key'])
      .where('path', 'like', `${path}%`)
      .execute();
  }

  /** How many folders below the one at `path` the user does not see. */
  async hiddenFoldersBelow(path: string, userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('secure_repo_nodes')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('path', 'like', `${path}_%`)
      .where('is_folder', '=', 1)
      .where((eb) => eb.not(sharedWith(eb, userId)))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Deletes the node at `path` and everything below it (their sharing rows go with them). */
  async deleteSubtree(path: string): Promise<void> {
    const ids = (await this.subtree(path)).map((row) => row.id);
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      await this.db.deleteFrom('secure_repo_node_groups').where('node_id', 'in', batch).execute();
      await this.db.deleteFrom('secure_repo_nodes').where('id', 'in', batch).execute();
    }
  }
}
