import {
  PART_HISTORY_MAX_EVENTS,
  type TBuild,
  type TPage,
  type TPageQuery,
  type TPart,
  type TPartHistory,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import { BuildsRepository } from './builds.repository.js';
import { buildEntry, partEntry, traceEventEntry } from './entries.js';
import { epcisDocument } from './epcis.js';
import { partHistoryEpcis } from './epcis-export.js';
import { EventsRepository } from './events.repository.js';
import { SERVER_CHAIN_ID } from './trace-event-format.js';

/** Builds and parts as listed (spec §7 `build/list`, `part/list`), paged in the database; a part's history. */
export class PartsService {
  constructor(private readonly database: Database) {}

  private builds(): BuildsRepository {
    return new BuildsRepository(this.database.db, this.database.dialect);
  }

  private events(): EventsRepository {
    return new EventsRepository(this.database.db, this.database.dialect);
  }

  async buildList(
    page: TPageQuery,
    filter: { dsiId?: string | undefined; buildId?: string | undefined },
  ): Promise<TPage<TBuild>> {
    const found = await this.builds().listBuilds(page, filter);
    return { ...found, data: found.data.map(buildEntry) };
  }

  /** Parts with the events of their job (one more query for the whole page). */
  async partList(
    page: TPageQuery,
    filter: { dsiId?: string | undefined; serialNumber?: string | undefined },
  ): Promise<TPage<TPart>> {
    const found = await this.builds().listParts(page, filter);
    const events = await this.events().eventsOfJobs(
      found.data.map((row) => ({ authorizationId: row.authorization_id, jobId: row.job_id })),
    );
    return {
      ...found,
      data: found.data.map((row) => partEntry(row, row.job_id, events.get(`${row.authorization_id}|${row.job_id}`) ?? [])),
    };
  }

  /**
   * `GET /ui/part/history`: design revision, order, authorization, machine, job and the machine's
   * events of that licence and job (docs/traceability.md), then the quality check events of its
   * inspections (docs/quality.md). Unknown part: `partNotPresent`.
   */
  async partHistory(partId: string): Promise<TPartHistory> {
    const builds = this.builds();
    const found = await builds.partWithBuild(partId);
    if (!found) throw new AppError('partNotPresent', { field: 'partId' });
    const { part, build } = found;
    const { order, authorization, device } = await builds.licensing(part.order_id, part.authorization_id, part.device_id);
    const rows = await this.events().eventsOfLicenceJob(
      part.device_id,
      part.authorization_id,
      build.job_id,
      PART_HISTORY_MAX_EVENTS + 1,
    );
    // the machine's events, then the server's own about the part (its inspections)
    const inspections = await this.events().serverEventsOfPart(SERVER_CHAIN_ID, part.id);
    const events = [...rows.slice(0, PART_HISTORY_MAX_EVENTS), ...inspections].map(traceEventEntry);
    return {
      part: partEntry(
        part,
        build.job_id,
        events.filter((event) => event.event.jobId === build.job_id).map((event) => event.eventId),
      ),
      design: {
        dsiId: order.dsi_id,
        dsiVersion: order.dsi_version,
        designName: order.design_name,
        digestValue: order.digest_value,
        builtAt: order.revision_created_at ?? null,
      },
      order: {
        orderId: order.id,
        orderNumber: order.order_number,
        companyName: order.company_name,
        quantity: order.quantity,
        expiredQuantity: order.expired_quantity,
        breakagePolicy: order.breakage_policy,
        revoked: order.revoked === 1,
        dateCreated: order.created_at,
      },
      authorization: {
        authorizationId: authorization.id,
        state: authorization.state,
        quantity: authorization.quantity,
        dateCreated: authorization.created_at,
        sentAt: authorization.sent_at,
        receivedAt: authorization.received_at,
        revokedAt: authorization.revoked_at,
      },
      machine: device
        ? {
            deviceId: device.id,
            name: device.name,
            serialNumber: device.serial_number,
            manufacturer: device.manufacturer,
            model: device.model,
            dateCreated: device.created_at,
          }
        : null,
      build: buildEntry(build),
      events,
      eventsTruncated: rows.length > PART_HISTORY_MAX_EVENTS,
    };
  }

  /** `GET /ui/part/epcis`: the part's history as an EPCIS 2.0 document. */
  async partEpcis(partId: string) {
    return epcisDocument(partHistoryEpcis(await this.partHistory(partId)), new Date().toISOString());
  }
}
