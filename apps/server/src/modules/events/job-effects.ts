import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { TTraceEventBody } from '@manifold/contract';
import type { BuildRow, BuildState, PartsTable } from '../../db/schema-trace.js';
import { formatSerial } from '../licensing/serial-numbers.js';
import type { BuildsRepository, JobLicence } from './builds.repository.js';
import type { EventAuthorization } from './events.repository.js';

const FINISHED: Record<string, { state: BuildState; part: PartsTable['qms_state'] } | undefined> = {
  jobEnded: { state: 'ended', part: 'MANUFACTURED' },
  jobFailed: { state: 'failed', part: 'FAILURE' },
  jobCancelled: { state: 'cancelled', part: 'CANCELED' },
};

const PART_ROWS_PER_INSERT = 500;

/** How many failed or cancelled parts the order may give back over its life (docs/breakage-policy.md). */
export function breakageAllowance(policy: string, value: number | null, orderQuantity: number): number {
  switch (policy) {
    case 'Trusted':
      return Number.POSITIVE_INFINITY;
    case 'Percentage':
      return Math.floor((orderQuantity * (value ?? 0)) / 100);
    case 'Quantity':
      return Math.floor(value ?? 0);
    default:
      return 0;
  }
}

/** Of `broken` parts, how many count against the licence when `givenBackSoFar` were already given back. */
export function countedBreakage(broken: number, allowance: number, givenBackSoFar: number): number {
  return broken - Math.max(0, Math.min(broken, allowance - givenBackSoFar));
}

/** Whether the order or the authorization asks for quality parameters: its parts await inspection. */
function hasQualityStep(licence: JobLicence): boolean {
  return licence.qualityParameters.some((json) => {
    const parameters: unknown = JSON.parse(json);
    return Array.isArray(parameters) && parameters.length > 0;
  });
}

interface JobEvent {
  eventId: string;
  deviceId: string;
  body: TTraceEventBody;
  authorization: EventAuthorization;
}

/**
 * The effects of one stored job event, inside its transaction: a build per job; finishing it
 * (ended, failed, cancelled — once) makes its parts and applies the order's breakage policy. A
 * job reported finished without a start is started then and there.
 */
export async function applyJobEvent(builds: BuildsRepository, event: JobEvent, now: string): Promise<void> {
  const { body, authorization } = event;
  const jobId = body.jobId!;
  let build = await builds.findBuild(authorization.id, event.deviceId, jobId);
  if (!build) {
    build = {
      id: randomUUID(),
      device_id: event.deviceId,
      authorization_id: authorization.id,
      order_id: authorization.order_id,
      dsi_id: authorization.dsi_id,
      job_id: jobId,
      state: 'started',
      quantity: body.quantity ?? 1,
      started_at: body.kind === 'jobStarted' ? body.occurredAt : null,
      finished_at: null,
      created_at: now,
      updated_at: now,
    };
    await builds.insertBuild(build);
  }
  if (build.state === 'ended' || build.state === 'failed' || build.state === 'cancelled') return;
  if (body.kind === 'jobPaused' || body.kind === 'jobResumed') {
    await builds.updateBuild(build.id, { state: body.kind === 'jobPaused' ? 'paused' : 'started', updated_at: now });
    return;
  }
  const finished = FINISHED[body.kind];
  if (!finished) return;
  await finishJob(builds, build, event, finished, now);
}

async function finishJob(
  builds: BuildsRepository,
  build: BuildRow,
  event: JobEvent,
  finished: { state: BuildState; part: PartsTable['qms_state'] },
  now: string,
): Promise<void> {
  const { authorization } = event;
  const count = event.body.quantity ?? build.quantity;
  const licence = await builds.licence(authorization.id, authorization.order_id);
  const made = await builds.madeUnder(authorization.id);
  const part = (serialNumber: string | null, qmsState: PartsTable['qms_state'], counted: number): Insertable<PartsTable> => ({
    id: randomUUID(),
    build_id: build.id,
    device_id: event.deviceId,
    authorization_id: authorization.id,
    order_id: authorization.order_id,
    dsi_id: authorization.dsi_id,
    serial_number: serialNumber,
    qms_state: qmsState,
    counted,
    event_id: event.eventId,
    revoked: 0,
    created_at: now,
  });
  const parts: Insertable<PartsTable>[] = [];
  if (finished.state === 'ended') {
    const state = hasQualityStep(licence) ? 'MANUFACTURED' : 'NO_QMS_STEP';
    for (let index = 0; index < count; index += 1) {
      const serial = licence.serialFirst === null ? null : licence.serialFirst + made + index;
      const reserved = serial !== null && licence.serialLast !== null && serial <= licence.serialLast;
      parts.push(part(reserved ? formatSerial(serial, licence.serialType, licence.serialPrefix) : null, state, 0));
    }
  } else {
    const allowance = breakageAllowance(licence.breakagePolicy, licence.breakageValue, licence.orderQuantity);
    const counted = countedBreakage(count, allowance, licence.givenBack);
    const moved = Math.max(0, Math.min(counted, licence.authorizationQuantity - made));
    await builds.applyBreakage(authorization.order_id, authorization.id, moved, count - counted, now);
    for (let index = 0; index < count; index += 1) parts.push(part(null, finished.part, index < counted ? 1 : 0));
  }
  for (let start = 0; start < parts.length; start += PART_ROWS_PER_INSERT) {
    await builds.insertParts(parts.slice(start, start + PART_ROWS_PER_INSERT));
  }
  await builds.updateBuild(build.id, {
    state: finished.state,
    quantity: count,
    finished_at: event.body.occurredAt,
    updated_at: now,
  });
}
