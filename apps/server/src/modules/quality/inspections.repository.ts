import type { Insertable, Kysely } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { InspectionRow, QualityInspectionsTable } from '../../db/schema-quality.js';
import type { PartsTable } from '../../db/schema-trace.js';

/** A part as an inspection needs it: its state, job, licence and the quality parameters of both layers. */
export interface InspectedPart {
  id: string;
  build_id: string;
  serial_number: string | null;
  qms_state: PartsTable['qms_state'];
  inspection_result: 'passed' | 'failed' | null;
  job_id: string;
  device_id: string;
  authorization_id: string;
  order_id: string;
  dsi_id: string;
  authorization_state: string;
  authorization_device_id: string | null;
  order_quality: string;
  authorization_quality: string;
}

/** Inspections and the latest inspection kept on each part. */
export class InspectionsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Pick<Dialect, 'forUpdate'>,
  ) {}

  private parts() {
    return this.db
      .selectFrom('parts')
      .innerJoin('builds', 'builds.id', 'parts.build_id')
      .innerJoin('authorizations', 'authorizations.id', 'parts.authorization_id')
      .innerJoin('orders', 'orders.id', 'parts.order_id')
      .select([
        'parts.id',
        'parts.build_id',
        'parts.serial_number',
        'parts.qms_state',
        'parts.inspection_result',
        'builds.job_id',
        'parts.device_id',
        'parts.authorization_id',
        'parts.order_id',
        'parts.dsi_id',
        'authorizations.state as authorization_state',
        'authorizations.device_id as authorization_device_id',
        'orders.quality_parameters as order_quality',
        'authorizations.quality_parameters as authorization_quality',
      ]);
  }

  part(id: string): Promise<InspectedPart | undefined> {
    return this.parts().where('parts.id', '=', id).executeTakeFirst();
  }

  partsOfBuild(buildId: string): Promise<InspectedPart[]> {
    return this.parts().where('parts.build_id', '=', buildId).orderBy('parts.serial_number').orderBy('parts.id').execute();
  }

  async buildExists(buildId: string): Promise<boolean> {
    return (await this.db.selectFrom('builds').select('id').where('id', '=', buildId).executeTakeFirst()) !== undefined;
  }

  /** Locks the part's row until the transaction ends: inspections of one part are recorded one at a time. */
  lockPart(id: string): Promise<{ id: string } | undefined> {
    return this.dialect.forUpdate(this.db.selectFrom('parts').select('id').where('id', '=', id)).executeTakeFirst();
  }

  /** The inspection, and a row per picture naming its stored object (the storage sweeper keeps what a row names). */
  async insert(row: Insertable<QualityInspectionsTable>, pictureKeys: string[]): Promise<void> {
    await this.db.insertInto('quality_inspections').values(row).execute();
    if (pictureKeys.length === 0) return;
    await this.db
      .insertInto('quality_inspection_pictures')
      .values(pictureKeys.map((storage_key, position) => ({ inspection_id: row.id, position, storage_key })))
      .execute();
  }

  async markPart(
    id: string,
    inspection: {
      inspectionId: string;
      result: 'passed' | 'failed';
      qmsState: PartsTable['qms_state'];
      at: string;
      technician: string;
      reason: string | null;
    },
  ): Promise<void> {
    await this.db
      .updateTable('parts')
      .set({
        qms_state: inspection.qmsState,
        inspection_id: inspection.inspectionId,
        inspection_result: inspection.result,
        inspected_at: inspection.at,
        technician: inspection.technician,
        failure_reason: inspection.reason,
      })
      .where('id', '=', id)
      .execute();
  }

  find(id: string): Promise<(InspectionRow & { serial_number: string | null }) | undefined> {
    return this.db
      .selectFrom('quality_inspections')
      .innerJoin('parts', 'parts.id', 'quality_inspections.part_id')
      .selectAll('quality_inspections')
      .select('parts.serial_number')
      .where('quality_inspections.id', '=', id)
      .executeTakeFirst();
  }

  /** Inspections newest first, of one part or one build when asked. */
  list(
    page: TPageQuery,
    filter: { partId?: string | undefined; buildId?: string | undefined },
  ): Promise<TPage<InspectionRow & { serial_number: string | null }>> {
    let base = this.db.selectFrom('quality_inspections').innerJoin('parts', 'parts.id', 'quality_inspections.part_id');
    if (filter.partId) base = base.where('quality_inspections.part_id', '=', filter.partId);
    if (filter.buildId) base = base.where('quality_inspections.build_id', '=', filter.buildId);
    return paginate(
      base,
      page,
      (query) =>
        query
          .selectAll('quality_inspections')
          .select('parts.serial_number')
          .orderBy('quality_inspections.created_at', 'desc')
          .orderBy('quality_inspections.id', 'desc'),
      (rows) => rows,
    );
  }
}
