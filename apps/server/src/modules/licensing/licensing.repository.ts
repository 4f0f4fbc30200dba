import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type {
  TAuthorization,
  TDeviceIdentityConstraint,
  TDeviceParameter,
  TOrder,
  TPage,
  TQualityParameter,
} from '@manifold/contract';
import { pageOffset, toPage } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { AuthorizationRow, AuthorizationValues, OrderRow, OrderValues } from '../../db/schema-licensing.js';
import type { Caller } from '../../lib/caller.js';

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

export const sortColumns = {
  orderId: 'id',
  userId: 'user_id',
  companyName: 'company_name',
  dateCreated: 'created_at',
} as const;

/** `Dec` or `Hex` number after the prefix. */
export function formatSerial(value: number, type: string | null, prefix: string | null): string {
  return `${prefix ?? ''}${type === 'Hex' ? value.toString(16).toUpperCase() : String(value)}`;
}

function nullableNumber(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

export function toOrder(row: OrderRow): TOrder {
  const start = nullableNumber(row.serial_start);
  const end = nullableNumber(row.serial_end);
  const next = nullableNumber(row.serial_next);
  return {
    orderIdentity: { orderId: row.id, authorizationId: row.upstream_authorization_id },
    orderId: row.id,
    version: row.version,
    dateCreated: row.created_at,
    companyName: row.company_name,
    manageUserId: row.manage_user_id,
    dasUrl: row.das_url,
    dsi: { dsiId: row.dsi_id, dsiVersion: row.dsi_version, revisionId: row.revision_id, designName: row.design_name },
    quantity: row.quantity,
    expiredQuantity: row.expired_quantity,
    allocatedQuantity: row.allocated,
    remainingQuantity: row.quantity - row.allocated - row.expired_quantity,
    purpose: row.purpose,
    licenseeKeySN: row.licensee_key_sn,
    digestMethod: 'SHA-256',
    digestValue: row.digest_value,
    sourceDateCreated: row.source_date_created,
    sourceCompanyName: row.source_company_name,
    deviceIdentity: row.device_identity ? (JSON.parse(row.device_identity) as TDeviceIdentityConstraint) : null,
    parameterVersion: row.parameter_version,
    imageUrl: row.image_url,
    fileInformationBlockElementSize: row.file_information_block_element_size,
    authorizedUserList: JSON.parse(row.authorized_users) as string[],
    archive: row.archived === 1,
    publicKeySN: row.public_key_sn,
    keyRoleSN: row.key_role_sn,
    userID: row.user_id,
    orderNumber: row.order_number,
    downstreamDevice: row.downstream_device === 1,
    revoked: row.revoked === 1,
    dateRevoked: row.revoked_at,
    expiration: row.expires_at,
    breakage: { policy: row.breakage_policy as TOrder['breakage']['policy'], value: row.breakage_value },
    serialization:
      row.serial_type !== null && start !== null && end !== null && next !== null
        ? { type: row.serial_type, prefix: row.serial_prefix ?? '', start, end, next }
        : null,
    deviceParameters: JSON.parse(row.device_parameters) as TDeviceParameter[],
    qualityParameters: JSON.parse(row.quality_parameters) as TQualityParameter[],
    source: row.source,
  };
}

export function toAuthorization(
  row: AuthorizationRow,
  serial: { type: string | null; prefix: string | null },
  delivery: string | null,
): TAuthorization {
  const first = nullableNumber(row.serial_first);
  const last = nullableNumber(row.serial_last);
  return {
    id: row.id,
    authorizationId: row.id,
    orderId: row.order_id,
    version: row.version,
    type: row.target_kind,
    deviceId: row.device_id,
    manageId: row.manage_id,
    quantity: row.quantity,
    state: row.state,
    expiration: row.expires_at,
    serialNumbers:
      first !== null && last !== null
        ? {
            first: formatSerial(first, serial.type, serial.prefix),
            last: formatSerial(last, serial.type, serial.prefix),
            count: last - first + 1,
          }
        : null,
    authorizedUserList: JSON.parse(row.authorized_users) as string[],
    tracking: JSON.parse(row.tracking) as TAuthorization['tracking'],
    deviceParameters: JSON.parse(row.device_parameters) as TDeviceParameter[],
    qualityParameters: JSON.parse(row.quality_parameters) as TQualityParameter[],
    dsiId: row.dsi_id,
    companyName: row.company_name,
    userID: row.user_id,
    dateCreated: row.created_at,
    dateSent: row.sent_at,
    dateReceived: row.received_at,
    dateRevoked: row.revoked_at,
    delivery,
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
 * Pages in the database: the ids of one page come from an index (filter columns, sort column,
 * id) — read from whichever end of the ordering is nearer, so the last page costs what the first
 * does — and only those rows are then read in full.
 */
async function pageOfIds<T extends 'orders' | 'authorizations'>(
  base: SelectQueryBuilder<DB, T, object>,
  table: T,
  sort: ListSort,
  page: { pageNum: number; numberOfItems: number },
  total: number,
): Promise<string[]> {
  const offset = pageOffset(page);
  if (offset >= total) return [];
  const end = Math.min(offset + page.numberOfItems, total);
  const fromEnd = total - end < offset;
  const direction = fromEnd ? (sort.direction === 'asc' ? 'desc' : 'asc') : sort.direction;
  const column = sql.ref(`${table}.${sort.column}`);
  const id = sql.ref(`${table}.id`);
  let query = base.select(sql<string>`${id}`.as('id'));
  query = sort.column === 'id' ? query.orderBy(id, direction) : query.orderBy(column, direction).orderBy(id, direction);
  const rows = await query
    .limit(end - offset)
    .offset(fromEnd ? total - end : offset)
    .execute();
  const ids = rows.map((row) => (row as { id: string }).id);
  return fromEnd ? ids.reverse() : ids;
}

export class LicensingRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findOrder(id: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findVisibleOrder(id: string, viewer: Viewer): Promise<OrderRow | undefined> {
    let query = this.db.selectFrom('orders').selectAll().where('id', '=', id);
    if (viewer.role !== 'ADMIN') query = query.where('orders.id', 'in', visibleOrderIds(this.db, viewer));
    return query.executeTakeFirst();
  }

  findOrderByDedupeKey(key: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('dedupe_key', '=', key).executeTakeFirst();
  }

  async insertOrder(row: OrderValues): Promise<void> {
    await this.db.insertInto('orders').values(row).execute();
  }

  async listOrders(
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
    const total = Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const ids = await pageOfIds(base, 'orders', sort, page, total);
    if (ids.length === 0) return toPage(page, total, []);
    const rows = await this.db.selectFrom('orders').selectAll().where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return toPage(
      page,
      total,
      ids.map((id) => toOrder(byId.get(id)!)),
    );
  }

  async listAuthorizations(
    filters: ListFilters & { orderId?: string | undefined; authorizationId?: string | undefined },
    sort: ListSort,
    page: { pageNum: number; numberOfItems: number },
    viewer: Viewer,
  ): Promise<TPage<TAuthorization>> {
    let base = this.db.selectFrom('authorizations').where('authorizations.archived', '=', filters.archived ? 1 : 0);
    if (filters.dsiId !== undefined) base = base.where('authorizations.dsi_id', '=', filters.dsiId);
    if (filters.companyName !== undefined) base = base.where('authorizations.company_name', '=', filters.companyName);
    if (filters.userId !== undefined) base = base.where('authorizations.user_id', '=', filters.userId);
    if (filters.orderId !== undefined) base = base.where('authorizations.order_id', '=', filters.orderId);
    if (filters.authorizationId !== undefined) base = base.where('authorizations.id', '=', filters.authorizationId);
    if (viewer.role !== 'ADMIN') base = base.where('authorizations.order_id', 'in', visibleOrderIds(this.db, viewer));
    const total = Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    // sorting by orderId means the order's id, then the authorization's
    const ordering: ListSort = sort.column === 'id' ? { column: 'id', direction: sort.direction } : sort;
    const ids =
      sort.column === 'id'
        ? await this.authorizationIdsByOrder(base, sort.direction, page, total)
        : await pageOfIds(base, 'authorizations', ordering, page, total);
    return toPage(page, total, await this.authorizationsInOrder(ids));
  }

  private async authorizationIdsByOrder(
    base: SelectQueryBuilder<DB, 'authorizations', object>,
    direction: 'asc' | 'desc',
    page: { pageNum: number; numberOfItems: number },
    total: number,
  ): Promise<string[]> {
    const offset = pageOffset(page);
    if (offset >= total) return [];
    const rows = await base
      .select('authorizations.id')
      .orderBy('authorizations.order_id', direction)
      .orderBy('authorizations.id', direction)
      .limit(page.numberOfItems)
      .offset(offset)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Authorizations with their order's serialization and outbox state, in the order of `ids`. */
  async authorizationsInOrder(ids: string[]): Promise<TAuthorization[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('authorizations')
      .innerJoin('orders', 'orders.id', 'authorizations.order_id')
      .selectAll('authorizations')
      .select(['orders.serial_type', 'orders.serial_prefix'])
      .where('authorizations.id', 'in', ids)
      .execute();
    const deliveries = await this.deliveries(ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id)!;
      return toAuthorization(row, { type: row.serial_type, prefix: row.serial_prefix }, deliveries.get(id) ?? null);
    });
  }

  async authorizationsOfOrder(orderId: string): Promise<TAuthorization[]> {
    const rows = await this.db
      .selectFrom('authorizations')
      .select('id')
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.authorizationsInOrder(rows.map((row) => row.id));
  }

  private async deliveries(authorizationIds: string[]): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('outbox')
      .select(['subject_id', 'state'])
      .where('kind', '=', 'authorization')
      .where('subject_id', 'in', authorizationIds)
      .orderBy('id')
      .execute();
    return new Map(rows.map((row) => [row.subject_id, row.state]));
  }

  findAuthorization(id: string): Promise<AuthorizationRow | undefined> {
    return this.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertAuthorization(row: AuthorizationValues): Promise<void> {
    await this.db.insertInto('authorizations').values(row).execute();
  }

  /**
   * Takes `quantity` from the order and, when it hands out serial numbers, reserves as many: ONE
   * conditional statement, so concurrent requests on any number of server instances can never
   * take more than the order holds. Answers whether it applied.
   */
  async takeQuantity(orderId: string, quantity: number, now: string, serialized: boolean): Promise<boolean> {
    let update = this.db
      .updateTable('orders')
      .set((eb) => ({
        allocated: eb('allocated', '+', quantity),
        version: eb('version', '+', 1),
        updated_at: now,
        ...(serialized ? { serial_next: sql<number>`serial_next + ${quantity}` } : {}),
      }))
      .where('id', '=', orderId)
      .where('revoked', '=', 0)
      .where((eb) => eb(eb(eb('allocated', '+', eb.ref('expired_quantity')), '+', quantity), '<=', eb.ref('quantity')))
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    if (serialized) update = update.where((eb) => eb(eb('serial_next', '+', quantity - 1), '<=', eb.ref('serial_end')));
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives unused quantity back to the order (a revoked authorization). */
  async returnQuantity(orderId: string, quantity: number, now: string): Promise<void> {
    await this.db
      .updateTable('orders')
      .set((eb) => ({ allocated: eb('allocated', '-', quantity), version: eb('version', '+', 1), updated_at: now }))
      .where('id', '=', orderId)
      .execute();
  }

  async orderGroupIds(orderId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('order_groups')
      .select('group_id')
      .where('order_id', '=', orderId)
      .orderBy('group_id')
      .execute();
    return rows.map((row) => row.group_id);
  }

  async history(subjects: string[]) {
    const rows = await this.db
      .selectFrom('audit_events')
      .select(['event_type', 'actor', 'subject', 'details', 'created_at'])
      .where('subject', 'in', subjects)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1000)
      .execute();
    return rows.map((row) => ({
      eventType: row.event_type,
      actor: row.actor,
      subject: row.subject,
      details: row.details ? (JSON.parse(row.details) as unknown) : null,
      dateCreated: row.created_at,
    }));
  }
}
