import { type Insertable, type Kysely, type Updateable, sql } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { listKey, paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import type { DB } from '../../db/schema.js';
import type { BuildRow, BuildsTable, PartRow, PartsTable } from '../../db/schema-trace.js';
import { nextVersion } from '../../db/version.js';
import { countMadeParts } from './made-parts.repository.js';

/** What a job event needs of its licence: the authorization and its order (the order locked). */
export interface JobLicence {
  authorizationQuantity: number;
  serialFirst: number | null;
  serialLast: number | null;
  /** JSON arrays: the order's and the authorization's quality parameters. */
  qualityParameters: [string, string];
  orderQuantity: number;
  breakagePolicy: string;
  breakageValue: number | null;
  /** Broken parts the order has given back so far (read under the lock: the latest committed value). */
  givenBack: number;
  serialType: string | null;
  serialPrefix: string | null;
}

/** Builds (one per job), their parts, and the order figures job events change. */
export class BuildsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Pick<Dialect, 'forUpdate'>,
  ) {}

  findBuild(authorizationId: string, deviceId: string, jobId: string): Promise<BuildRow | undefined> {
    return this.db
      .selectFrom('builds')
      .selectAll()
      .where('authorization_id', '=', authorizationId)
      .where('device_id', '=', deviceId)
      .where('job_id', '=', jobId)
      .executeTakeFirst();
  }

  async insertBuild(row: Insertable<BuildsTable>): Promise<void> {
    await this.db.insertInto('builds').values(row).execute();
  }

  async updateBuild(id: string, changes: Updateable<BuildsTable>): Promise<void> {
    await this.db.updateTable('builds').set(changes).where('id', '=', id).execute();
  }

  /** The authorization and its order; the order row stays locked until the transaction ends. */
  async licence(authorizationId: string, orderId: string): Promise<JobLicence> {
    const order = await this.dialect
      .forUpdate(
        this.db
          .selectFrom('orders')
          .select(['quantity', 'breakage_policy', 'breakage_value', 'serial_type', 'serial_prefix', 'quality_parameters'])
          .where('id', '=', orderId),
      )
      .executeTakeFirstOrThrow();
    const authorization = await this.db
      .selectFrom('authorizations')
      .select(['quantity', 'serial_first', 'serial_last', 'quality_parameters'])
      .where('id', '=', authorizationId)
      .executeTakeFirstOrThrow();
    return {
      authorizationQuantity: authorization.quantity,
      serialFirst: authorization.serial_first === null ? null : Number(authorization.serial_first),
      serialLast: authorization.serial_last === null ? null : Number(authorization.serial_last),
      qualityParameters: [order.quality_parameters, authorization.quality_parameters],
      orderQuantity: order.quantity,
      breakagePolicy: order.breakage_policy,
      breakageValue: order.breakage_value === null ? null : Number(order.breakage_value),
      givenBack: await this.givenBack(orderId),
      serialType: order.serial_type,
      serialPrefix: order.serial_prefix,
    };
  }

  /** A locking read: under MariaDB's repeatable read a plain one could see an older snapshot. */
  private async givenBack(orderId: string): Promise<number> {
    const row = await this.dialect
      .forUpdate(this.db.selectFrom('order_breakage').select('given_back').where('order_id', '=', orderId))
      .executeTakeFirst();
    if (row) return row.given_back;
    await this.db.insertInto('order_breakage').values({ order_id: orderId, given_back: 0 }).execute();
    return 0;
  }

  /**
   * Parts the authorization has made (they used its units and its serial numbers, in order). Only
   * its machine's events make them, one at a time under the machine's chain lock.
   */
  madeUnder(authorizationId: string): Promise<number> {
    return countMadeParts(this.db, authorizationId);
  }

  async insertParts(rows: Insertable<PartsTable>[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('parts').values(rows).execute();
  }

  /**
   * Breakage: `count` units leave the authorization and the order's allocation for its
   * expiredQuantity; `givenBack` more parts of the order's allowance are used.
   */
  async applyBreakage(orderId: string, authorizationId: string, count: number, givenBack: number, now: string): Promise<void> {
    await this.db
      .updateTable('order_breakage')
      .set((eb) => ({ given_back: eb('given_back', '+', givenBack) }))
      .where('order_id', '=', orderId)
      .execute();
    if (count === 0) return;
    await this.db
      .updateTable('orders')
      .set((eb) => ({
        allocated: eb('allocated', '-', count),
        expired_quantity: eb('expired_quantity', '+', count),
        version: nextVersion(),
        updated_at: now,
      }))
      .where('id', '=', orderId)
      .execute();
    await this.db
      .updateTable('authorizations')
      .set((eb) => ({ quantity: eb('quantity', '-', count), version: nextVersion(), updated_at: now }))
      .where('id', '=', authorizationId)
      .execute();
  }

  /** Builds newest first, optionally of one design. */
  listBuilds(page: TPageQuery, filter: { dsiId?: string | undefined; buildId?: string | undefined }): Promise<TPage<BuildRow>> {
    let base = this.db.selectFrom('builds');
    if (filter.dsiId) base = base.where('builds.dsi_id', '=', filter.dsiId);
    if (filter.buildId) base = base.where('builds.id', '=', filter.buildId);
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['builds', filter.dsiId ?? null, filter.buildId ?? null]),
        tables: ['builds'],
        readByKey: true,
        ...(filter.buildId ? {} : { counted: [filter.dsiId ? listKey('d', [filter.dsiId]) : WHOLE_TABLE] }),
      },
      base,
      { value: sql.ref('builds.created_at'), id: sql.ref('builds.id'), direction: 'desc' },
      page,
      (from) => from.selectAll(),
      (rows) => rows,
    );
  }

  /** Parts newest first with their job's id, optionally of one design and one serial number. */
  listParts(
    page: TPageQuery,
    filter: { dsiId?: string | undefined; serialNumber?: string | undefined },
  ): Promise<TPage<PartRow & { job_id: string }>> {
    let base = this.db.selectFrom('parts');
    if (filter.dsiId) base = base.where('parts.dsi_id', '=', filter.dsiId);
    if (filter.serialNumber) base = base.where('parts.serial_number', '=', filter.serialNumber);
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['parts', filter.dsiId ?? null, filter.serialNumber ?? null]),
        tables: ['parts'],
        readByKey: true,
        ...(filter.serialNumber ? {} : { counted: [filter.dsiId ? listKey('d', [filter.dsiId]) : WHOLE_TABLE] }),
      },
      base,
      { value: sql.ref('parts.created_at'), id: sql.ref('parts.id'), direction: 'desc' },
      page,
      (from) => from.selectAll(),
      // the page's jobs in one read by their builds' ids (a join here let a planner start from the builds)
      async (rows) => {
        const builds =
          rows.length === 0
            ? []
            : await this.db
                .selectFrom('builds')
                .select(['id', 'job_id'])
                .where('id', 'in', [...new Set(rows.map((row) => row.build_id))])
                .execute();
        const jobOf = new Map(builds.map((build) => [build.id, build.job_id]));
        return rows.map((row) => ({ ...row, job_id: jobOf.get(row.build_id)! }));
      },
    );
  }

  /** One part with its build (the job), or undefined. */
  async partWithBuild(partId: string): Promise<{ part: PartRow; build: BuildRow } | undefined> {
    const part = await this.db.selectFrom('parts').selectAll().where('id', '=', partId).executeTakeFirst();
    if (!part) return undefined;
    const build = await this.db.selectFrom('builds').selectAll().where('id', '=', part.build_id).executeTakeFirstOrThrow();
    return { part, build };
  }

  /** What licensed a part: its order (with the design revision it names), authorization and machine. */
  async licensing(orderId: string, authorizationId: string, deviceId: string) {
    const order = await this.db
      .selectFrom('orders')
      .leftJoin('package_revisions', 'package_revisions.id', 'orders.revision_id')
      .select([
        'orders.id',
        'orders.order_number',
        'orders.company_name',
        'orders.quantity',
        'orders.expired_quantity',
        'orders.breakage_policy',
        'orders.revoked',
        'orders.created_at',
        'orders.dsi_id',
        'orders.dsi_version',
        'orders.design_name',
        'orders.digest_value',
        'package_revisions.created_at as revision_created_at',
      ])
      .where('orders.id', '=', orderId)
      .executeTakeFirstOrThrow();
    const authorization = await this.db
      .selectFrom('authorizations')
      .select(['id', 'state', 'quantity', 'created_at', 'sent_at', 'received_at', 'revoked_at'])
      .where('id', '=', authorizationId)
      .executeTakeFirstOrThrow();
    const device = await this.db
      .selectFrom('devices')
      .select(['id', 'name', 'serial_number', 'manufacturer', 'model', 'created_at'])
      .where('id', '=', deviceId)
      .executeTakeFirst();
    return { order, authorization, device };
  }
}
