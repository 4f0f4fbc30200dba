import {
  QUALITY_SEARCH_MAX_DAYS,
  type TGroupCount,
  type TInspectionValue,
  type TQualityPart,
  type TQualitySearchRequest,
  type TQualitySearchResponse,
  type TQualityStatistics,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { type FoundPartRow, type GroupRow, type PartsFilter, PartsSearchRepository } from './parts-search.repository.js';
import { passRate, searchPlan } from './search-rules.js';

/** At most this many groups per statistic (the most failures first). */
const GROUP_LIMIT = 50;

const count = (value: number | string | bigint | null | undefined) => Number(value ?? 0);

function toPart(row: FoundPartRow): TQualityPart {
  return {
    partId: row.id,
    partName: row.design_name ?? row.dsi_id,
    serialNumber: row.serial_number,
    state: row.inspection_result!,
    partQmsState: row.qms_state,
    imageUrl: null,
    notes: row.notes,
    reason: row.failure_reason,
    technician: row.technician ?? '',
    traceEventId: row.event_id ?? '',
    inspectionId: row.inspection_id ?? '',
    inspectedAt: row.inspected_at ?? '',
    dateOfManufacture: row.created_at,
    device: { deviceId: row.device_id, name: row.device_name ?? row.device_id },
    package: { dsiId: row.dsi_id, designName: row.design_name ?? row.dsi_id },
    supplier: row.company_name ?? '',
    buildId: row.build_id,
    qualityParameters: row.quality_values ? (JSON.parse(row.quality_values) as TInspectionValue[]) : [],
  };
}

function groups(rows: GroupRow[], labels: Map<string, string> = new Map()): TGroupCount[] {
  return rows.map((row) => ({
    key: row.key ?? '',
    label: labels.get(row.key ?? '') ?? row.key ?? '',
    passed: count(row.passed),
    failed: count(row.failed),
  }));
}

/**
 * `POST /ui/qms/parts/search` (docs/quality.md): the inspected parts a filter keeps, passed and
 * failed each paged, and the statistics of all of them, every figure counted by the database.
 */
export class PartsSearchService {
  constructor(private readonly database: Database) {}

  async search(request: TQualitySearchRequest): Promise<TQualitySearchResponse> {
    const { sortBy, window } = searchPlan(request);
    const filter: PartsFilter = {
      dsiId: request.dsiId,
      deviceId: request.deviceId,
      supplier: request.supplier,
      serialNumber: request.serialNumber,
      state: request.state,
      technician: request.technician,
      window,
    };
    const repository = new PartsSearchRepository(this.database.db);
    const sort = { sortBy, sortOrder: request.sortOrder };
    const [passed, failed, statistics] = await Promise.all([
      repository.page(filter, 'passed', request.passed, sort),
      repository.page(filter, 'failed', request.failed, sort),
      this.statistics(repository, filter),
    ]);
    const { passed: _passedPage, failed: _failedPage, ...filtering } = request;
    return {
      passed: { ...passed, data: passed.data.map(toPart) },
      failed: { ...failed, data: failed.data.map(toPart) },
      filtering: { ...filtering, sortBy },
      statistics,
    };
  }

  private async statistics(repository: PartsSearchRepository, filter: PartsFilter): Promise<TQualityStatistics> {
    const [totals, reasons, machines, designs, suppliers, days] = await Promise.all([
      repository.totals(filter),
      repository.failuresByReason(filter, GROUP_LIMIT),
      repository.byGroup(filter, 'machine', GROUP_LIMIT),
      repository.byGroup(filter, 'design', GROUP_LIMIT),
      repository.byGroup(filter, 'supplier', GROUP_LIMIT),
      repository.overTime(filter, QUALITY_SEARCH_MAX_DAYS),
    ]);
    const [deviceNames, designNames] = await Promise.all([
      repository.deviceNames(machines.map((row) => row.key ?? '')),
      repository.designNames(designs.map((row) => row.key ?? '')),
    ]);
    const inspected = totals.passed + totals.failed;
    return {
      inspected,
      passed: totals.passed,
      failed: totals.failed,
      passRate: passRate(totals.passed, inspected),
      failuresByReason: reasons.map((row) => ({ reason: row.key ?? '', failed: count(row.failed) })),
      byMachine: groups(machines, deviceNames),
      byDesign: groups(designs, designNames),
      bySupplier: groups(suppliers),
      overTime: days.reverse().map((row) => ({ day: row.day, passed: count(row.passed), failed: count(row.failed) })),
    };
  }
}
