import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type {
  TAuthorization,
  TDeviceParameter,
  TDtl,
  TEnforceOrder,
  TPage,
  TPageQuery,
  TQualityParameter,
  TStpAuthorization,
  TStpOrder,
} from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { AuthorizationRow, AuthorizationValues } from '../../db/schema-licensing.js';
import { nextVersion } from '../../db/version.js';
import { listKey, paginateAnchored } from '../../db/anchored-paging.js';
import { type ListFilters, listOf, type ListSort, type Viewer, visibleOrderIds } from './orders.repository.js';
import { deliveryStates } from '../outbox/outbox.repository.js';
import { formatSerial, nullableNumber } from './serial-numbers.js';
import { countMadeParts } from '../events/made-parts.repository.js';

type JsonColumns = 'authorized_users' | 'tracking' | 'device_parameters' | 'quality_parameters';

/** An authorization as services see it: its JSON columns parsed (here, once). */
export type AuthorizationRecord = Omit<AuthorizationRow, JsonColumns> & {
  authorized_users: string[];
  tracking: TAuthorization['tracking'];
  device_parameters: TDeviceParameter[];
  quality_parameters: TQualityParameter[];
};

/** Whether its expiration has passed at `now` (ISO-8601 UTC strings compare as times). */
export function isExpired(row: Pick<AuthorizationRow, 'expires_at'>, now: string): boolean {
  return row.expires_at !== null && row.expires_at <= now;
}

/** An authorization to insert: its JSON columns as values, serialized here. */
export type NewAuthorization = Omit<AuthorizationValues, JsonColumns> & Pick<AuthorizationRecord, JsonColumns>;

/** A new authorization (or part of one) with its JSON columns serialized, as they are stored. */
export function serializedJson<T extends Pick<NewAuthorization, JsonColumns>>(
  authorization: T,
): Omit<T, JsonColumns> & Record<JsonColumns, string> {
  return {
    ...authorization,
    authorized_users: JSON.stringify(authorization.authorized_users),
    tracking: JSON.stringify(authorization.tracking),
    device_parameters: JSON.stringify(authorization.device_parameters),
    quality_parameters: JSON.stringify(authorization.quality_parameters),
  };
}

function toRecord(row: AuthorizationRow): AuthorizationRecord {
  return {
    ...row,
    authorized_users: JSON.parse(row.authorized_users) as string[],
    tracking: JSON.parse(row.tracking) as TAuthorization['tracking'],
    device_parameters: JSON.parse(row.device_parameters) as TDeviceParameter[],
    quality_parameters: JSON.parse(row.quality_parameters) as TQualityParameter[],
  };
}

export function toAuthorization(
  authorization: AuthorizationRecord,
  serial: { type: string | null; prefix: string | null },
  delivery: string | null,
): TAuthorization {
  const first = nullableNumber(authorization.serial_first);
  const last = nullableNumber(authorization.serial_last);
  return {
    id: authorization.id,
    authorizationId: authorization.id,
    orderId: authorization.order_id,
    version: authorization.version,
    type: authorization.target_kind,
    deviceId: authorization.device_id,
    manageId: authorization.manage_id,
    quantity: authorization.quantity,
    state: authorization.state,
    expiration: authorization.expires_at,
    serialNumbers:
      first !== null && last !== null
        ? {
            first: formatSerial(first, serial.type, serial.prefix),
            last: formatSerial(last, serial.type, serial.prefix),
            count: last - first + 1,
          }
        : null,
    authorizedUserList: authorization.authorized_users,
    tracking: authorization.tracking,
    deviceParameters: authorization.device_parameters,
    qualityParameters: authorization.quality_parameters,
    dsiId: authorization.dsi_id,
    companyName: authorization.company_name,
    userID: authorization.user_id,
    dateCreated: authorization.created_at,
    dateSent: authorization.sent_at,
    dateReceived: authorization.received_at,
    dateRevoked: authorization.revoked_at,
    delivery,
  };
}

/** Live for a machine: sent or received and not expired at `now`. */
function unexpired<QB extends SelectQueryBuilder<DB, 'authorizations', object>>(query: QB, now: string): QB {
  return query.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])) as QB;
}

/**
 * Authorizations: parts of orders handed to machines and downstream Manage instances, their
 * state changes, and the lists of the console and of machine pulls. Built over the database or
 * over the caller's transaction.
 */
export class AuthorizationsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async find(id: string): Promise<AuthorizationRecord | undefined> {
    const row = await this.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  /** An authorization of the machine (undefined when it is another's). */
  async findOfDevice(id: string, deviceId: string): Promise<AuthorizationRecord | undefined> {
    const row = await this.db
      .selectFrom('authorizations')
      .selectAll()
      .where('id', '=', id)
      .where('device_id', '=', deviceId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Inserts authorizations in one multi-row statement. */
  async insert(authorizations: NewAuthorization[]): Promise<void> {
    if (authorizations.length === 0) return;
    await this.db.insertInto('authorizations').values(authorizations.map(serializedJson)).execute();
  }

  /** Every authorization of the order, oldest first. */
  async ofOrder(orderId: string): Promise<AuthorizationRecord[]> {
    const rows = await this.db
      .selectFrom('authorizations')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  /** The order's authorizations that are not revoked. */
  async liveOfOrder(orderId: string): Promise<AuthorizationRecord[]> {
    const rows = await this.db
      .selectFrom('authorizations')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('state', '<>', 'revoked')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  /** Parts already made under an authorization (read under the order's lock, like the job events that make them). */
  madeParts(id: string): Promise<number> {
    return countMadeParts(this.db, id);
  }

  /** Answers whether it was revoked now (false: it already was). */
  async markRevoked(id: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authorizations')
      .set({ state: 'revoked', revoked_at: now, updated_at: now, version: nextVersion() })
      .where('id', '=', id)
      .where('state', '<>', 'revoked')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Marks these authorizations sent (those still `authorized`), in one statement. */
  async markSent(ids: string[], now: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('authorizations')
      .set({ state: 'sent', sent_at: now, updated_at: now, version: nextVersion() })
      .where('id', 'in', ids)
      .where('state', '=', 'authorized')
      .execute();
  }

  /** Answers whether this call marked it received (false: another did first). */
  async markReceived(id: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authorizations')
      .set({ state: 'received', received_at: now, updated_at: now, version: nextVersion() })
      .where('id', '=', id)
      .where('state', '=', 'sent')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async list(
    filters: ListFilters & { orderId?: string | undefined; authorizationId?: string | undefined },
    sort: ListSort,
    page: TPageQuery,
    viewer: Viewer,
  ): Promise<TPage<TAuthorization>> {
    let base = this.db.selectFrom('authorizations').where('authorizations.archived', '=', filters.archived ? 1 : 0);
    if (filters.dsiId !== undefined) base = base.where('authorizations.dsi_id', '=', filters.dsiId);
    if (filters.companyName !== undefined) base = base.where('authorizations.company_name', '=', filters.companyName);
    if (filters.userId !== undefined) base = base.where('authorizations.user_id', '=', filters.userId);
    if (filters.orderId !== undefined) base = base.where('authorizations.order_id', '=', filters.orderId);
    if (filters.authorizationId !== undefined) base = base.where('authorizations.id', '=', filters.authorizationId);
    if (viewer.role !== 'ADMIN') base = base.where('authorizations.order_id', 'in', visibleOrderIds(this.db, viewer));
    // sorting by orderId means the order's id, then the authorization's
    const { list, ordering } = listOf('authorizations', filters, sort, viewer, sort.column === 'id' ? 'order_id' : sort.column);
    return paginateAnchored(
      this.db,
      list,
      base,
      ordering,
      page,
      (from) => from.select('authorizations.id'),
      (rows) => this.inOrder(rows.map((row) => row.id)),
    );
  }

  /**
   * One page of the order's authorizations, oldest first (the order detail): from the list's
   * anchors over the index (order_id, created_at, id), so a deep page costs what the first does.
   */
  async pageOfOrder(orderId: string, page: TPageQuery): Promise<TPage<TAuthorization>> {
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['authorizations of order', orderId]),
        tables: ['authorizations'],
        counted: [listKey('ao', [0, orderId]), listKey('ao', [1, orderId])],
      },
      this.db.selectFrom('authorizations').where('authorizations.order_id', '=', orderId),
      { value: sql.ref('authorizations.created_at'), id: sql.ref('authorizations.id'), direction: 'asc' },
      page,
      (from) => from.select('authorizations.id'),
      (rows) => this.inOrder(rows.map((row) => row.id)),
    );
  }

  /** Authorizations with their order's serialization and outbox state, in the order of `ids`. */
  async inOrder(ids: string[]): Promise<TAuthorization[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('authorizations')
      .innerJoin('orders', 'orders.id', 'authorizations.order_id')
      .selectAll('authorizations')
      .select(['orders.serial_type', 'orders.serial_prefix'])
      .where('authorizations.id', 'in', ids)
      .execute();
    const deliveries = await deliveryStates(this.db, ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id)!;
      return toAuthorization(toRecord(row), { type: row.serial_type, prefix: row.serial_prefix }, deliveries.get(id) ?? null);
    });
  }

  /** `enforce/order/list`: authorizations sent to machines, newest first. */
  enforceList(
    query: TPageQuery & { deviceId?: string | undefined; state?: TAuthorization['state'] | undefined },
    viewer: Viewer,
  ): Promise<TPage<TEnforceOrder>> {
    let base = this.db
      .selectFrom('authorizations')
      .where('authorizations.target_kind', '=', 'device')
      .where('authorizations.sent_at', 'is not', null);
    if (query.deviceId) base = base.where('authorizations.device_id', '=', query.deviceId);
    if (query.state) base = base.where('authorizations.state', '=', query.state);
    if (viewer.role !== 'ADMIN') base = base.where('authorizations.order_id', 'in', visibleOrderIds(this.db, viewer));
    return paginate(
      base,
      query,
      (filtered) =>
        filtered
          .innerJoin('orders', 'orders.id', 'authorizations.order_id')
          .leftJoin('devices', 'devices.id', 'authorizations.device_id')
          .selectAll('authorizations')
          .select(['orders.order_number', 'devices.name as device_name'])
          .orderBy('authorizations.sent_at', 'desc')
          .orderBy('authorizations.id', 'desc'),
      (rows) =>
        rows.map((row) => ({
          authorizationId: row.id,
          orderId: row.order_id,
          orderNumber: row.order_number,
          dsiId: row.dsi_id,
          deviceId: row.device_id!,
          deviceName: row.device_name,
          quantity: row.quantity,
          state: row.state,
          expiration: row.expires_at,
          dateSent: row.sent_at,
          dateReceived: row.received_at,
          dateRevoked: row.revoked_at,
        })),
    );
  }

  /** `dtl/list`: machine data licences, newest first. */
  dtlList(
    query: TPageQuery & { deviceId?: string | undefined; orderId?: string | undefined },
    viewer: Viewer,
  ): Promise<TPage<TDtl>> {
    let base = this.db.selectFrom('dtls');
    if (query.deviceId) base = base.where('device_id', '=', query.deviceId);
    if (query.orderId) base = base.where('order_id', '=', query.orderId);
    if (viewer.role !== 'ADMIN') base = base.where('order_id', 'in', visibleOrderIds(this.db, viewer));
    return paginate(
      base,
      query,
      (filtered) => filtered.selectAll().orderBy('created_at', 'desc').orderBy('id'),
      (rows) =>
        rows.map((row) => ({
          dtlId: row.id,
          deviceId: row.device_id,
          authorizationId: row.authorization_id,
          orderId: row.order_id,
          dsiId: row.dsi_id,
          fileName: row.file_name,
          size: Number(row.size),
          sha256: row.sha256,
          manageId: row.manage_id,
          dateCreated: row.created_at,
        })),
    );
  }

  /** STP: orders the machine holds a live (sent or received, not expired) authorization of. */
  ordersHeldBy(deviceId: string, page: TPageQuery, now: string): Promise<TPage<TStpOrder>> {
    const held = unexpired(
      this.db
        .selectFrom('authorizations')
        .select('order_id')
        .where('device_id', '=', deviceId)
        .where('state', 'in', ['sent', 'received']),
      now,
    );
    return paginate(
      this.db.selectFrom('orders').where('id', 'in', held),
      page,
      (base) => base.selectAll().orderBy('id'),
      (rows) =>
        rows.map((row) => ({
          orderId: row.id,
          orderNumber: row.order_number,
          dsiId: row.dsi_id,
          dsiVersion: row.dsi_version,
          revisionId: row.revision_id,
          digestMethod: 'SHA-256' as const,
          digestValue: row.digest_value,
          expiration: row.expires_at,
        })),
    );
  }

  /** STP: the machine's authorizations that were sent to it and have not expired, live and revoked. */
  sentTo(deviceId: string, page: TPageQuery, now: string): Promise<TPage<TStpAuthorization>> {
    const base = unexpired(
      this.db.selectFrom('authorizations').where('device_id', '=', deviceId).where('sent_at', 'is not', null),
      now,
    );
    return paginate(
      base,
      page,
      (filtered) => filtered.selectAll().orderBy('created_at').orderBy('id'),
      (rows) =>
        rows.map((row) => ({
          authorizationId: row.id,
          orderId: row.order_id,
          state: row.state,
          quantity: row.state === 'revoked' ? 0 : row.quantity,
          expiration: row.expires_at,
          dateRevoked: row.revoked_at,
        })),
    );
  }
}
