import { type Kysely, sql } from 'kysely';
import type {
  TDeviceIdentityConstraint,
  TDeviceParameter,
  TOrder,
  TOrderListQuery,
  TPage,
  TQualityParameter,
} from '@manifold/contract';
import type { Dialect, TableIndex } from '../../db/dialect.js';
import { type ListIdentity, type ListOrdering, listKey, paginateAnchored } from '../../db/anchored-paging.js';
import { countedKeys, type ListTable } from '../../db/migrations/033-list-counts.js';
import type { DB } from '../../db/schema.js';
import type { OrderRow, OrderValues } from '../../db/schema-licensing.js';
import { nextVersion } from '../../db/version.js';
import type { Caller } from '../../lib/caller.js';
import { type AuthorizeTargets, targetsQualify } from './recipients.repository.js';
import { nullableNumber } from './serial-numbers.js';

/** Who may see an order: an ADMIN every one, a USER those shared with one of their groups. */
export type Viewer = Pick<Caller, 'userId' | 'role'>;

export interface ListFilters {
  archived: boolean;
  dsiId?: string | undefined;
  companyName?: string | undefined;
  userId?: string | undefined;
}

export interface ListSort {
  column: 'id' | 'user_id' | 'company_name' | 'created_at';
  direction: 'asc' | 'desc';
}

const sortColumns = {
  orderId: 'id',
  userId: 'user_id',
  companyName: 'company_name',
  dateCreated: 'created_at',
} as const;

/** The filters and the sort an `order/list` query asks for (`authorization/list` asks for them too). */
export function listQueryOf(query: TOrderListQuery): { filters: ListFilters; sort: ListSort } {
  return {
    filters: {
      archived: query.filterByArchived,
      dsiId: query.filterByDsiId,
      companyName: query.filterByCompanyName,
      userId: query.filterByUserId,
    },
    sort: { column: sortColumns[query.sortBy], direction: query.sortOrder },
  };
}

/** Ids of the orders shared with one of the viewer's groups (a subquery). */
export function visibleOrderIds(db: Kysely<DB>, viewer: Viewer) {
  return db
    .selectFrom('order_groups')
    .innerJoin('user_group_members', 'user_group_members.group_id', 'order_groups.group_id')
    .select('order_groups.order_id')
    .where('user_group_members.user_id', '=', viewer.userId);
}

/**
 * The counted key (migration 033) whose rows an administrator's order or authorization list is:
 * the archived switch alone or with one filter that is counted for the table (orders: a company,
 * user or design; authorizations: an order); any other combination is counted.
 */
function countedKeyOf(table: 'orders' | 'authorizations', filters: ListQueryFilters, viewer: Viewer): string[] | undefined {
  if (viewer.role !== 'ADMIN' || filters.authorizationId !== undefined) return undefined;
  const archived = filters.archived ? 1 : 0;
  const set = (
    [
      ['ao', filters.orderId],
      ['ac', filters.companyName],
      ['au', filters.userId],
      ['ad', filters.dsiId],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (set.length === 0) return [listKey('a', [archived])];
  const [name, value] = set[0]!;
  return set.length === 1 && name in countedKeys[table] ? [listKey(name, [archived, value])] : undefined;
}

type ListQueryFilters = ListFilters & { orderId?: string | undefined; authorizationId?: string | undefined };

/** The columns the list's filters fix with an equality (the archived switch always). */
function filteredColumns(filters: ListQueryFilters): string[] {
  return (
    [
      ['archived', true],
      ['dsi_id', filters.dsiId],
      ['company_name', filters.companyName],
      ['user_id', filters.userId],
      ['order_id', filters.orderId],
    ] as const
  ).flatMap(([column, value]) => (value === undefined ? [] : [column as string]));
}

/**
 * The list indexes of the two tables (migrations 010 and 034), by the columns before the id that ends each:
 * the filters' equalities, then the sort column.
 */
const listIndexes: Record<'orders' | 'authorizations', Record<string, readonly string[]>> = {
  orders: {
    orders_archived_id_idx: ['archived'],
    orders_archived_user_idx: ['archived', 'user_id'],
    orders_archived_company_idx: ['archived', 'company_name'],
    orders_archived_created_idx: ['archived', 'created_at'],
    orders_archived_dsi_idx: ['archived', 'dsi_id'],
    orders_archived_dsi_created_idx: ['archived', 'dsi_id', 'created_at'],
    orders_archived_company_created_idx: ['archived', 'company_name', 'created_at'],
    orders_archived_user_created_idx: ['archived', 'user_id', 'created_at'],
  },
  authorizations: {
    authorizations_archived_id_idx: ['archived', 'order_id'],
    authorizations_archived_user_idx: ['archived', 'user_id'],
    authorizations_archived_company_idx: ['archived', 'company_name'],
    authorizations_archived_created_idx: ['archived', 'created_at'],
    // migration 034
    authorizations_archived_dsi_created_idx: ['archived', 'dsi_id', 'created_at'],
    authorizations_archived_company_created_idx: ['archived', 'company_name', 'created_at'],
    authorizations_archived_user_created_idx: ['archived', 'user_id', 'created_at'],
  },
};

/**
 * The index whose columns are the list's equalities (in any order), then the sort column unless
 * an equality fixes it, then the id: it yields the list's rows in order, each page a seek. None
 * for a single authorization, and none for a USER's list, whose groups may see few rows that the
 * optimiser rightly finds from the groups' side.
 */
export function servingIndex(
  table: 'orders' | 'authorizations',
  filters: ListQueryFilters,
  sortColumn: string,
  viewer: Viewer,
): TableIndex | undefined {
  if (viewer.role !== 'ADMIN' || filters.authorizationId !== undefined) return undefined;
  const equalities = filteredColumns(filters);
  const sortedBy = sortColumn === 'id' || equalities.includes(sortColumn) ? undefined : sortColumn;
  const wanted = sortedBy ? [...equalities, sortedBy] : equalities;
  const found = Object.entries(listIndexes[table]).find(
    ([, columns]) =>
      columns.length === wanted.length &&
      columns.every((column) => wanted.includes(column)) &&
      (sortedBy === undefined || columns.at(-1) === sortedBy),
  );
  return found && { table, name: found[0] };
}

/** The cache identity and ordering of an order or authorization list (db/anchored-paging.ts). */
export function listOf(
  table: 'orders' | 'authorizations',
  filters: ListQueryFilters,
  sort: ListSort,
  viewer: Viewer,
  sortColumn: string = sort.column,
): { list: ListIdentity; ordering: ListOrdering } {
  // a group's deletion takes its rows of both with it, which MariaDB does without their triggers
  const visibility: ListTable[] = viewer.role === 'ADMIN' ? [] : ['order_groups', 'user_group_members', 'user_groups'];
  const counted = countedKeyOf(table, filters, viewer);
  return {
    list: {
      key: JSON.stringify([table, filters, sortColumn, sort.direction, viewer.role === 'ADMIN' ? null : viewer.userId]),
      tables: [table, ...visibility],
      ...(counted ? { counted } : {}),
    },
    ordering: {
      value: sql.ref(`${table}.${sortColumn}`),
      id: sql.ref(`${table}.id`),
      direction: sort.direction,
      fixed: filteredColumns(filters).includes(sortColumn),
      byId: sortColumn === 'id',
      index: servingIndex(table, filters, sortColumn, viewer),
    },
  };
}

/** An order as services see it: its JSON columns parsed (here, once). */
export type OrderRecord = Omit<OrderRow, 'device_identity' | 'device_parameters' | 'quality_parameters' | 'authorized_users'> & {
  device_identity: TDeviceIdentityConstraint | null;
  device_parameters: TDeviceParameter[];
  quality_parameters: TQualityParameter[];
  authorized_users: string[];
};

/** An order to insert: its JSON columns as values, serialized here. */
export type NewOrder = Omit<OrderValues, 'device_identity' | 'device_parameters' | 'quality_parameters' | 'authorized_users'> &
  Pick<OrderRecord, 'device_identity' | 'device_parameters' | 'quality_parameters' | 'authorized_users'>;

function toRecord(row: OrderRow): OrderRecord {
  return {
    ...row,
    device_identity: row.device_identity ? (JSON.parse(row.device_identity) as TDeviceIdentityConstraint) : null,
    device_parameters: JSON.parse(row.device_parameters) as TDeviceParameter[],
    quality_parameters: JSON.parse(row.quality_parameters) as TQualityParameter[],
    authorized_users: JSON.parse(row.authorized_users) as string[],
  };
}

/** What an order has left to hand out. */
export function remainingQuantity(order: Pick<OrderRecord, 'quantity' | 'allocated' | 'expired_quantity'>): number {
  return order.quantity - order.allocated - order.expired_quantity;
}

export function toOrder(order: OrderRecord): TOrder {
  const start = nullableNumber(order.serial_start);
  const end = nullableNumber(order.serial_end);
  const next = nullableNumber(order.serial_next);
  return {
    orderIdentity: { orderId: order.id, authorizationId: order.upstream_authorization_id },
    orderId: order.id,
    version: order.version,
    dateCreated: order.created_at,
    companyName: order.company_name,
    manageUserId: order.manage_user_id,
    dasUrl: order.das_url,
    dsi: {
      dsiId: order.dsi_id,
      dsiVersion: order.dsi_version,
      revisionId: order.revision_id,
      designName: order.design_name,
    },
    quantity: order.quantity,
    expiredQuantity: order.expired_quantity,
    allocatedQuantity: order.allocated,
    remainingQuantity: remainingQuantity(order),
    purpose: order.purpose,
    licenseeKeySN: order.licensee_key_sn,
    digestMethod: 'SHA-256',
    digestValue: order.digest_value,
    sourceDateCreated: order.source_date_created,
    sourceCompanyName: order.source_company_name,
    deviceIdentity: order.device_identity,
    parameterVersion: order.parameter_version,
    imageUrl: order.image_url,
    fileInformationBlockElementSize: order.file_information_block_element_size,
    authorizedUserList: order.authorized_users,
    archive: order.archived === 1,
    publicKeySN: order.public_key_sn,
    keyRoleSN: order.key_role_sn,
    userID: order.user_id,
    orderNumber: order.order_number,
    downstreamDevice: order.downstream_device === 1,
    revoked: order.revoked === 1,
    dateRevoked: order.revoked_at,
    expiration: order.expires_at,
    breakage: { policy: order.breakage_policy as TOrder['breakage']['policy'], value: order.breakage_value },
    serialization:
      order.serial_type !== null && start !== null && end !== null && next !== null
        ? { type: order.serial_type, prefix: order.serial_prefix ?? '', start, end, next }
        : null,
    deviceParameters: order.device_parameters,
    qualityParameters: order.quality_parameters,
    source: order.source,
  };
}

/** A design revision built here, which an order names by dsiId and dsiVersion. */
export interface OrderedRevision {
  id: string;
  package_id: string;
  dsi_version: number;
  design_name: string;
  digest: string;
}

/**
 * Orders, the groups they are shared with, and the quantity they hand out. Built over the
 * database or over the caller's transaction (`new OrdersRepository(trx, dialect)`).
 */
export class OrdersRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  async find(id: string): Promise<OrderRecord | undefined> {
    const row = await this.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async findVisible(id: string, viewer: Viewer): Promise<OrderRecord | undefined> {
    let query = this.db.selectFrom('orders').selectAll().where('id', '=', id);
    if (viewer.role !== 'ADMIN') query = query.where('orders.id', 'in', visibleOrderIds(this.db, viewer));
    const row = await query.executeTakeFirst();
    return row && toRecord(row);
  }

  /**
   * Of these ids, those naming an order the viewer may see, each with the order's id as stored
   * (one query). MariaDB compares ids without regard to case, as it did for one id at a time.
   */
  async visibleIds(ids: string[], viewer: Viewer): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    let query = this.db.selectFrom('orders').select('id').where('id', 'in', unique);
    if (viewer.role !== 'ADMIN') query = query.where('orders.id', 'in', visibleOrderIds(this.db, viewer));
    const key = (id: string) => (this.dialect.kind === 'mysql' ? id.toLowerCase() : id);
    const stored = new Map((await query.execute()).map((row) => [key(row.id), row.id]));
    return new Map(unique.flatMap((id) => (stored.has(key(id)) ? [[id, stored.get(key(id))!] as const] : [])));
  }

  /** The order, locked until the transaction ends (PostgreSQL and MariaDB; SQLite has one writer). */
  async lock(id: string): Promise<OrderRecord | undefined> {
    const row = await this.dialect.forUpdate(this.db.selectFrom('orders').selectAll().where('id', '=', id)).executeTakeFirst();
    return row && toRecord(row);
  }

  async existsWithDedupeKey(key: string): Promise<boolean> {
    return (await this.idWithDedupeKey(key)) !== undefined;
  }

  async idWithDedupeKey(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('orders').select('id').where('dedupe_key', '=', key).executeTakeFirst();
    return row?.id;
  }

  /** Orders carrying `orderNumber`, from any source (the caller compares the source). */
  withOrderNumber(orderNumber: string): Promise<{ id: string; revoked: number; source_company_name: string }[]> {
    return this.db
      .selectFrom('orders')
      .select(['id', 'revoked', 'source_company_name'])
      .where('order_number', '=', orderNumber)
      .execute();
  }

  findRevision(dsiId: string, dsiVersion: number): Promise<OrderedRevision | undefined> {
    return this.db
      .selectFrom('package_revisions')
      .select(['id', 'package_id', 'dsi_version', 'design_name', 'digest'])
      .where('package_id', '=', dsiId)
      .where('dsi_version', '=', dsiVersion)
      .executeTakeFirst();
  }

  async insert(order: NewOrder): Promise<void> {
    await this.db
      .insertInto('orders')
      .values({
        ...order,
        device_identity: order.device_identity ? JSON.stringify(order.device_identity) : null,
        device_parameters: JSON.stringify(order.device_parameters),
        quality_parameters: JSON.stringify(order.quality_parameters),
        authorized_users: JSON.stringify(order.authorized_users),
      })
      .execute();
  }

  async list(
    filters: ListFilters,
    sort: ListSort,
    page: { pageNum: number; numberOfItems: number },
    viewer: Viewer,
  ): Promise<TPage<TOrder>> {
    let base = this.db.selectFrom('orders').where('orders.archived', '=', filters.archived ? 1 : 0);
    if (filters.dsiId !== undefined) base = base.where('orders.dsi_id', '=', filters.dsiId);
    if (filters.companyName !== undefined) base = base.where('orders.company_name', '=', filters.companyName);
    if (filters.userId !== undefined) base = base.where('orders.user_id', '=', filters.userId);
    if (viewer.role !== 'ADMIN') base = base.where('orders.id', 'in', visibleOrderIds(this.db, viewer));
    const { list, ordering } = listOf('orders', filters, sort, viewer);
    return paginateAnchored(
      this.db,
      list,
      base,
      ordering,
      page,
      (from) => from.select('orders.id'),
      async (rows) => (await this.inOrder(rows.map((row) => row.id))).map(toOrder),
    );
  }

  /** Orders in the order of `ids`. */
  async inOrder(ids: string[]): Promise<OrderRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('orders').selectAll().where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => toRecord(byId.get(id)!));
  }

  /** Archives (true) or restores (false) orders that are not so yet; their authorizations follow. */
  async setArchived(ids: string[], archived: boolean, now: string): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ archived: archived ? 1 : 0, updated_at: now, version: nextVersion() })
      .where('id', 'in', ids)
      .where('archived', '=', archived ? 0 : 1)
      .execute();
    await this.db
      .updateTable('authorizations')
      .set({ archived: archived ? 1 : 0 })
      .where('order_id', 'in', ids)
      .execute();
  }

  async markRevoked(id: string, now: string): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ revoked: 1, revoked_at: now, updated_at: now, version: nextVersion() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Takes `quantity` from the order and, when it hands out serial numbers, reserves as many: ONE
   * conditional statement, so concurrent requests on any number of server instances can never
   * take more than the order holds. Answers the first reserved serial number (null when the
   * order has none), or undefined when it did not apply. With `targets`: only when they all still
   * qualify (`targetsQualify`), checked by the same statement.
   */
  async takeQuantity(
    orderId: string,
    quantity: number,
    now: string,
    serialized: boolean,
    targets?: AuthorizeTargets,
  ): Promise<number | null | undefined> {
    let update = this.db
      .updateTable('orders')
      .set((eb) => ({
        allocated: eb('allocated', '+', quantity),
        version: nextVersion(),
        updated_at: now,
        ...(serialized ? { serial_next: sql<number>`serial_next + ${quantity}` } : {}),
      }))
      .where('id', '=', orderId)
      .where('revoked', '=', 0)
      .where((eb) => eb(eb(eb('allocated', '+', eb.ref('expired_quantity')), '+', quantity), '<=', eb.ref('quantity')))
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    if (serialized) update = update.where((eb) => eb(eb('serial_next', '+', quantity - 1), '<=', eb.ref('serial_end')));
    if (targets) update = update.where(targetsQualify(targets));
    if (!serialized) {
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? null : undefined;
    }
    if (this.dialect.kind !== 'mysql') {
      // the serial numbers taken come back with the update (MariaDB has no UPDATE … RETURNING)
      const taken = await update.returning('serial_next').executeTakeFirst();
      return taken ? Number(taken.serial_next) - quantity : undefined;
    }
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const next = await this.db.selectFrom('orders').select('serial_next').where('id', '=', orderId).executeTakeFirstOrThrow();
    return Number(next.serial_next) - quantity;
  }

  /** Gives unused quantity back to the order (a revoked authorization). */
  async returnQuantity(orderId: string, quantity: number, now: string): Promise<void> {
    await this.db
      .updateTable('orders')
      .set((eb) => ({ allocated: eb('allocated', '-', quantity), version: nextVersion(), updated_at: now }))
      .where('id', '=', orderId)
      .execute();
  }

  async groupIds(orderId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('order_groups')
      .select('group_id')
      .where('order_id', '=', orderId)
      .orderBy('group_id')
      .execute();
    return rows.map((row) => row.group_id);
  }

  /** Of `groupIds`, those that exist. */
  async existingGroupIds(groupIds: number[]): Promise<Set<number>> {
    if (groupIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('user_groups').select('id').where('id', 'in', groupIds).execute();
    return new Set(rows.map((row) => row.id));
  }

  /** Shares the order with exactly `groupIds`. */
  async setGroups(orderId: string, groupIds: number[]): Promise<void> {
    await this.db.deleteFrom('order_groups').where('order_id', '=', orderId).execute();
    await this.shareWith(orderId, groupIds);
  }

  /** Shares a new order with every group of the user who added it. */
  async shareWithGroupsOf(orderId: string, userId: number): Promise<void> {
    const groups = await this.db.selectFrom('user_group_members').select('group_id').where('user_id', '=', userId).execute();
    await this.shareWith(
      orderId,
      groups.map((group) => group.group_id),
    );
  }

  private async shareWith(orderId: string, groupIds: number[]): Promise<void> {
    if (groupIds.length === 0) return;
    await this.db
      .insertInto('order_groups')
      .values(groupIds.map((groupId) => ({ order_id: orderId, group_id: groupId })))
      .execute();
  }
}
