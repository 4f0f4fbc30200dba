import type { TBuild, TPage, TPageQuery, TPart } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { BuildsRepository } from './builds.repository.js';
import { EventsRepository } from './events.repository.js';

/** Builds and parts as listed (spec §7 `build/list`, `part/list`), paged in the database. */
export class PartsService {
  constructor(private readonly database: Database) {}

  private builds(): BuildsRepository {
    return new BuildsRepository(this.database.db, this.database.dialect);
  }

  async buildList(page: TPageQuery, filter: { dsiId?: string | undefined }): Promise<TPage<TBuild>> {
    const found = await this.builds().listBuilds(page, filter);
    return {
      ...found,
      data: found.data.map((row) => ({
        buildId: row.id,
        jobId: row.job_id,
        deviceId: row.device_id,
        authorizationId: row.authorization_id,
        orderId: row.order_id,
        dsiId: row.dsi_id,
        state: row.state,
        quantity: row.quantity,
        startedAt: row.started_at,
        finishedAt: row.finished_at,
        dateCreated: row.created_at,
      })),
    };
  }

  /** Parts with the events of their job (one more query for the whole page). */
  async partList(
    page: TPageQuery,
    filter: { dsiId?: string | undefined; serialNumber?: string | undefined },
  ): Promise<TPage<TPart>> {
    const found = await this.builds().listParts(page, filter);
    const events = await new EventsRepository(this.database.db, this.database.dialect).eventsOfJobs(
      found.data.map((row) => ({ authorizationId: row.authorization_id, jobId: row.job_id })),
    );
    return {
      ...found,
      data: found.data.map((row) => ({
        id: row.id,
        dsiId: row.dsi_id,
        serialNumber: row.serial_number,
        revoked: row.revoked === 1,
        imageUrl: null,
        partQmsState: row.qms_state,
        traceEvents: events.get(`${row.authorization_id}|${row.job_id}`) ?? [],
        buildId: row.build_id,
        jobId: row.job_id,
        deviceId: row.device_id,
        authorizationId: row.authorization_id,
        orderId: row.order_id,
        counted: row.counted === 1,
        dateCreated: row.created_at,
      })),
    };
  }
}
