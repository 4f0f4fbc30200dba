import type { TBuild, TPart, TTraceEventEntry, TTraceEventKind } from '@manifold/contract';
import type { BuildRow, PartRow, TraceEventRow } from '../../db/schema-trace.js';

/** A stored event as listed (spec §3 Trace event). */
export function traceEventEntry(row: TraceEventRow): TTraceEventEntry {
  return {
    id: row.event_id,
    eventId: row.event_id,
    version: 1,
    event: {
      kind: row.kind as TTraceEventKind,
      deviceId: row.device_id,
      occurredAt: row.occurred_at,
      authorizationId: row.authorization_id,
      orderId: row.order_id,
      dsiId: row.dsi_id,
      jobId: row.job_id,
      quantity: row.quantity,
      data: JSON.parse(row.data) as Record<string, string>,
    },
    status: row.chain_finding ? 'chainBroken' : 'verified',
    chainFinding: row.chain_finding,
    sequence: row.sequence,
    eventHash: row.event_hash,
    previousHash: row.previous_hash,
    source: row.source,
    dateCreated: row.received_at,
  };
}

/** A build as listed (`build/list`). */
export function buildEntry(row: BuildRow): TBuild {
  return {
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
  };
}

/** A part as listed (spec §3 Part), with its job's id and the eventIds of that job. */
export function partEntry(row: PartRow, jobId: string, traceEvents: string[]): TPart {
  return {
    id: row.id,
    dsiId: row.dsi_id,
    serialNumber: row.serial_number,
    revoked: row.revoked === 1,
    imageUrl: null,
    partQmsState: row.qms_state,
    traceEvents,
    buildId: row.build_id,
    jobId,
    deviceId: row.device_id,
    authorizationId: row.authorization_id,
    orderId: row.order_id,
    counted: row.counted === 1,
    dateCreated: row.created_at,
  };
}
