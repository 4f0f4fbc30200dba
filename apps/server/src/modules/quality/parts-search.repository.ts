import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { TPage, TQualitySortField } from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { SearchWindow } from './search-rules.js';

/** The filters of a parts search, already checked. */
export interface PartsFilter {
  dsiId?: string | undefined;
  deviceId?: string | undefined;
  supplier?: string | undefined;
  serialNumber?: string | undefined;
  state?: 'passed' | 'failed' | undefined;
  technician?: string | undefined;
  window: SearchWindow;
}

export interface FoundPartRow {
  id: string;
  build_id: string;
  device_id: string;
  dsi_id: string;
  serial_number: string | null;
  qms_state: 'NO_QMS_STEP' | 'MANUFACTURED' | 'CANCELED' | 'FAILURE';
  inspection_id: string | null;
  inspection_result: 'passed' | 'failed' | null;
  inspected_at: string | null;
  technician: string | null;
  failure_reason: string | null;
  created_at: string;
  notes: string | null;
  quality_values: string | null;
  event_id: string | null;
  device_name: string | null;
  design_name: string | null;
  company_name: string | null;
}

export interface GroupRow {
  key: string | null;
  passed: number | string | bigint | null;
  failed: number | string | bigint | null;
}

type PartsQuery = SelectQueryBuilder<DB, 'parts', object>;

const sortColumns: Record<
  TQualitySortField,
  'parts.inspected_at' | 'parts.serial_number' | 'parts.created_at' | 'parts.technician'
> = {
  inspectedAt: 'parts.inspected_at',
  serialNumber: 'parts.serial_number',
  dateOfManufacture: 'parts.created_at',
  technician: 'parts.technician',
};

const passedCount = sql<number>`sum(case when parts.inspection_result = 'passed' then 1 else 0 end)`;
const failedCount = sql<number>`sum(case when parts.inspection_result = 'failed' then 1 else 0 end)`;
const inspectionDay = sql<string>`substr(parts.inspected_at, 1, 10)`;

/** The parts search and its statistics, every figure counted by the database over the filtered inspected parts. */
export class PartsSearchRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Inspected parts the filter keeps (the latest inspection of each part counts). */
  private filtered(filter: PartsFilter): PartsQuery {
    let query: PartsQuery = this.db.selectFrom('parts').where('parts.inspection_result', 'is not', null);
    if (filter.state) query = query.where('parts.inspection_result', '=', filter.state);
    if (filter.dsiId) query = query.where('parts.dsi_id', '=', filter.dsiId);
    if (filter.deviceId) query = query.where('parts.device_id', '=', filter.deviceId);
    if (filter.serialNumber) query = query.where('parts.serial_number', '=', filter.serialNumber);
    if (filter.technician) query = query.where('parts.technician', '=', filter.technician);
    if (filter.window.from) query = query.where('parts.inspected_at', '>=', filter.window.from);
    if (filter.window.until) query = query.where('parts.inspected_at', '<', filter.window.until);
    if (filter.supplier) {
      const supplier = filter.supplier;
      query = query.where('parts.order_id', 'in', (eb) =>
        eb.selectFrom('orders').select('orders.id').where('orders.company_name', '=', supplier),
      );
    }
    return query;
  }

  /** One page of the parts with this result, with what the answer shows of each. */
  page(
    filter: PartsFilter,
    result: 'passed' | 'failed',
    page: { pageNum: number; numberOfItems: number },
    sort: { sortBy: TQualitySortField; sortOrder: 'asc' | 'desc' },
  ): Promise<TPage<FoundPartRow>> {
    const base = this.filtered(filter).where('parts.inspection_result', '=', result);
    return paginate(
      base,
      page,
      (query) =>
        query
          .leftJoin('quality_inspections', 'quality_inspections.id', 'parts.inspection_id')
          .leftJoin('devices', 'devices.id', 'parts.device_id')
          .leftJoin('packages', 'packages.id', 'parts.dsi_id')
          .leftJoin('orders', 'orders.id', 'parts.order_id')
          .select([
            'parts.id',
            'parts.build_id',
            'parts.device_id',
            'parts.dsi_id',
            'parts.serial_number',
            'parts.qms_state',
            'parts.inspection_id',
            'parts.inspection_result',
            'parts.inspected_at',
            'parts.technician',
            'parts.failure_reason',
            'parts.created_at',
            'quality_inspections.notes',
            'quality_inspections.quality_values',
            'quality_inspections.event_id',
            'devices.name as device_name',
            'packages.design_name',
            'orders.company_name',
          ])
          .orderBy(sortColumns[sort.sortBy], sort.sortOrder)
          .orderBy('parts.id', sort.sortOrder),
      (rows) => rows,
    );
  }

  async totals(filter: PartsFilter): Promise<{ passed: number; failed: number }> {
    const row = await this.filtered(filter)
      .select([passedCount.as('passed'), failedCount.as('failed')])
      .executeTakeFirstOrThrow();
    return { passed: Number(row.passed ?? 0), failed: Number(row.failed ?? 0) };
  }

  failuresByReason(filter: PartsFilter, limit: number): Promise<{ key: string | null; failed: number | string | bigint }[]> {
    return this.filtered(filter)
      .where('parts.inspection_result', '=', 'failed')
      .select(['parts.failure_reason as key', (eb) => eb.fn.countAll().as('failed')])
      .groupBy('parts.failure_reason')
      .orderBy('failed', 'desc')
      .orderBy('parts.failure_reason')
      .limit(limit)
      .execute();
  }

  /** Passed and failed per machine, per design, or per supplier company; most failures first. */
  byGroup(filter: PartsFilter, group: 'machine' | 'design' | 'supplier', limit: number): Promise<GroupRow[]> {
    const filtered = this.filtered(filter);
    if (group === 'supplier') {
      return filtered
        .innerJoin('orders', 'orders.id', 'parts.order_id')
        .select(['orders.company_name as key', passedCount.as('passed'), failedCount.as('failed')])
        .groupBy('orders.company_name')
        .orderBy('failed', 'desc')
        .orderBy('orders.company_name')
        .limit(limit)
        .execute();
    }
    const column = group === 'machine' ? 'parts.device_id' : 'parts.dsi_id';
    return filtered
      .select([`${column} as key`, passedCount.as('passed'), failedCount.as('failed')])
      .groupBy(column)
      .orderBy('failed', 'desc')
      .orderBy(column)
      .limit(limit)
      .execute() as Promise<GroupRow[]>;
  }

  /** Passed and failed per inspection day (UTC), the latest `limit` days, newest first. */
  overTime(filter: PartsFilter, limit: number): Promise<{ day: string; passed: number | string; failed: number | string }[]> {
    return this.filtered(filter)
      .select([inspectionDay.as('day'), passedCount.as('passed'), failedCount.as('failed')])
      .groupBy(inspectionDay)
      .orderBy(inspectionDay, 'desc')
      .limit(limit)
      .execute();
  }

  async deviceNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('devices').select(['id', 'name']).where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async designNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('packages').select(['id', 'design_name']).where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row.design_name]));
  }
}
