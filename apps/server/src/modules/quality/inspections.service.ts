import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  type TInspection,
  type TInspectionRequest,
  type TInspectionTarget,
  type TInspectionValue,
  type TPage,
  type TPageQuery,
  type TQualityParameter,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { InspectionRow } from '../../db/schema-quality.js';
import type { PartsTable } from '../../db/schema-trace.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import type { Storage } from '../../storage/storage.js';
import type { EventsService } from '../events/events.service.js';
import { checkInspectionValues, inspectedParameters } from './inspection-values.js';
import { type InspectedPart, InspectionsRepository } from './inspections.repository.js';
import { qmsStateAfter, isInspectable } from './qms-state.js';

/** A picture of an inspection, stored. */
export interface StoredPicture {
  key: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
}

/** An inspection request whose parts and values were checked, ready to be recorded. */
export interface CheckedInspection {
  request: TInspectionRequest;
  parts: InspectedPart[];
}

function parametersOf(part: InspectedPart): TQualityParameter[] {
  return inspectedParameters(
    JSON.parse(part.order_quality) as TQualityParameter[],
    JSON.parse(part.authorization_quality) as TQualityParameter[],
  );
}

function toInspection(row: InspectionRow & { serial_number: string | null }): TInspection {
  const pictures = JSON.parse(row.pictures) as StoredPicture[];
  return {
    inspectionId: row.id,
    partId: row.part_id,
    buildId: row.build_id,
    serialNumber: row.serial_number,
    result: row.result,
    reason: row.reason,
    technician: row.technician,
    notes: row.notes,
    qualityParameters: JSON.parse(row.quality_values) as TInspectionValue[],
    pictures: pictures.map((picture, index) => ({
      index,
      fileName: picture.fileName,
      contentType: picture.contentType,
      size: picture.size,
      sha256: picture.sha256,
    })),
    traceEventId: row.event_id,
    partQmsState: row.qms_state,
    inspectedBy: row.created_by,
    dateCreated: row.created_at,
  };
}

/**
 * Inspections (docs/quality.md): a part, or every inspectable part of a build, passed or failed
 * by a technician, with the measured values of the order's quality parameters (checked with the
 * device-parameter value rules) and pictures. Each inspected part's QMS state moves, its latest
 * inspection is kept on it for the parts search, and a quality check passed / failed event is
 * recorded on the server's chain, all in one transaction.
 */
export class InspectionsService {
  constructor(
    private readonly database: Database,
    private readonly events: EventsService,
    private readonly storage: Storage,
  ) {}

  private repository(db = this.database.db): InspectionsRepository {
    return new InspectionsRepository(db, this.database.dialect);
  }

  /** What an inspection of the part or the build asks for: its inspectable parts and the quality parameters with their bounds. */
  async target(target: { partId?: string | undefined; buildId?: string | undefined }): Promise<TInspectionTarget> {
    const parts = await this.inspectedParts(target);
    return {
      buildId: parts[0]!.build_id,
      parts: parts.map((part) => ({ partId: part.id, serialNumber: part.serial_number, partQmsState: part.qms_state })),
      qualityParameters: parametersOf(parts[0]!),
    };
  }

  /** Checks the request before any picture is stored: its target, the parts' states and the values. */
  async check(request: TInspectionRequest): Promise<CheckedInspection> {
    if (request.result === 'failed' && !request.reason) throw new AppError('inspectionReasonRequired', { field: 'reason' });
    const parts = await this.inspectedParts(request);
    // every part of a build shares its authorization, so one check covers them all
    const problems = new ErrorCollector();
    checkInspectionValues(parametersOf(parts[0]!), request.qualityParameters, problems);
    problems.throwIfAny();
    return { request, parts };
  }

  /** The inspectable parts of the request's part or build. */
  private async inspectedParts(request: { partId?: string | undefined; buildId?: string | undefined }): Promise<InspectedPart[]> {
    if ((request.partId === undefined) === (request.buildId === undefined)) {
      throw new AppError('inspectionTargetInvalid', { field: request.partId ? 'buildId' : 'partId' });
    }
    let parts: InspectedPart[];
    if (request.partId) {
      const part = await this.repository().part(request.partId);
      if (!part) throw new AppError('partNotPresent', { field: 'partId' });
      if (!isInspectable(part)) throw new AppError('partNotInspectable', { field: 'partId' });
      parts = [part];
    } else {
      const buildId = request.buildId!;
      if (!(await this.repository().buildExists(buildId))) throw new AppError('buildNotPresent', { field: 'buildId' });
      parts = (await this.repository().partsOfBuild(buildId)).filter(isInspectable);
      if (parts.length === 0) {
        throw new AppError('partNotInspectable', {
          field: 'buildId',
          description: 'The build has no part that can be inspected',
        });
      }
    }
    return parts;
  }

  /** Records a checked inspection with its stored pictures; on failure the pictures are removed. */
  async record(
    checked: CheckedInspection,
    pictures: StoredPicture[],
    caller: Pick<Caller, 'username' | 'sourceIp'>,
  ): Promise<TInspection[]> {
    const { request } = checked;
    try {
      await this.events.prepareServerChain();
      const ids = await this.database.transaction(async (trx) => {
        const repository = this.repository(trx);
        await this.events.lockServerChain(trx);
        const recorded: string[] = [];
        for (const part of checked.parts) {
          await repository.lockPart(part.id);
          const current = await repository.part(part.id);
          if (!current || !isInspectable(current)) throw new AppError('partNotInspectable', { field: 'partId' });
          const inspectionId = randomUUID();
          const qmsState: PartsTable['qms_state'] = qmsStateAfter(request.result);
          const receipt = await this.events.recordServerEvent(
            trx,
            {
              kind: request.result === 'passed' ? 'qualityCheckPassed' : 'qualityCheckFailed',
              authorization: {
                id: current.authorization_id,
                device_id: current.authorization_device_id,
                state: current.authorization_state,
                order_id: current.order_id,
                dsi_id: current.dsi_id,
              },
              jobId: current.job_id,
              data: {
                inspectionId,
                partId: current.id,
                ...(current.serial_number ? { serialNumber: current.serial_number } : {}),
                technician: request.technician,
                ...(request.reason && request.result === 'failed' ? { reason: request.reason } : {}),
              },
              proof: { inspectionId },
            },
            caller,
          );
          const at = isoNow();
          await repository.insert(
            {
              id: inspectionId,
              part_id: current.id,
              build_id: current.build_id,
              result: request.result,
              reason: request.result === 'failed' ? (request.reason ?? null) : null,
              technician: request.technician,
              notes: request.notes ? request.notes : null,
              quality_values: JSON.stringify(request.qualityParameters),
              pictures: JSON.stringify(pictures),
              event_id: receipt.eventId,
              qms_state: qmsState,
              created_by: caller.username,
              created_at: at,
            },
            pictures.map((picture) => picture.key),
          );
          await repository.markPart(current.id, {
            inspectionId,
            result: request.result,
            qmsState,
            at,
            technician: request.technician,
            reason: request.result === 'failed' ? (request.reason ?? null) : null,
          });
          recorded.push(inspectionId);
        }
        return recorded;
      });
      const found = await Promise.all(ids.map((id) => this.repository().find(id)));
      return found.filter((row) => row !== undefined).map(toInspection);
    } catch (error) {
      for (const picture of pictures) await this.storage.delete(picture.key);
      throw error;
    }
  }

  list(page: TPageQuery, filter: { partId?: string | undefined; buildId?: string | undefined }): Promise<TPage<TInspection>> {
    return this.repository()
      .list(page, filter)
      .then((found) => ({ ...found, data: found.data.map(toInspection) }));
  }

  /** One picture of an inspection, streamed from storage. */
  async picture(inspectionId: string, index: number): Promise<{ picture: StoredPicture; stream: Readable }> {
    const row = await this.repository().find(inspectionId);
    if (!row) throw new AppError('inspectionNotPresent', { field: 'inspectionId' });
    const picture = (JSON.parse(row.pictures) as StoredPicture[])[index];
    if (!picture) throw new AppError('entityDoesNotExist', { field: 'index', description: 'The inspection has no such picture' });
    return { picture, stream: await this.storage.get(picture.key) };
  }
}
