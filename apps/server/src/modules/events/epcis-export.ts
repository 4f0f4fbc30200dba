import type { TPartHistory, TTraceEventEntry, TTraceEventKind } from '@manifold/contract';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { Disposition, EpcisEventInput } from './epcis.js';
import { uuidUri } from './epcis.js';

/** Inspections and their outcome (CBV dispositions). */
const inspections: Partial<Record<TTraceEventKind, Disposition>> = {
  qualityCheckPassed: 'conformant',
  qualityCheckFailed: 'non_conformant',
  scanningPassed: 'conformant',
  scanningFailed: 'non_conformant',
};

/** Manifold's fields of a trace event, as extension fields (the machine's data as one canonical JSON text). */
function eventExtensions(entry: TTraceEventEntry): Record<string, string> {
  const { event } = entry;
  const fields: Record<string, string> = {
    kind: event.kind,
    eventId: entry.eventId,
    eventHash: entry.eventHash,
    sequence: String(entry.sequence),
    status: entry.status,
  };
  if (event.authorizationId) fields.authorizationId = event.authorizationId;
  if (event.orderId) fields.orderId = event.orderId;
  if (event.dsiId) fields.dsiId = event.dsiId;
  if (event.jobId) fields.jobId = event.jobId;
  if (event.quantity !== null) fields.quantity = String(event.quantity);
  if (Object.keys(event.data).length > 0) fields.data = canonicalJson(event.data);
  return fields;
}

/** A trace event observed on `objects` (the part, or the machine itself) at the machine. */
function observation(entry: TTraceEventEntry, objects: string[]): EpcisEventInput {
  const disposition = inspections[entry.event.kind];
  return {
    type: 'ObjectEvent',
    eventTime: entry.event.occurredAt,
    epcList: objects,
    action: 'OBSERVE',
    ...(disposition ? { bizStep: 'inspecting' as const, disposition } : {}),
    readPoint: uuidUri(entry.event.deviceId),
    extensions: eventExtensions(entry),
  };
}

/**
 * An event search: each event an observation of its machine (`urn:uuid:<deviceId>`) at the
 * machine, its kind and Manifold's fields as extensions.
 */
export function eventSearchEpcis(entries: TTraceEventEntry[]): EpcisEventInput[] {
  return entries.map((entry) => observation(entry, [uuidUri(entry.event.deviceId)]));
}

/**
 * A part's history: the build that made it (a transformation, the design and licence as
 * context), the part itself (commissioned, or destroyed when its job failed or was cancelled),
 * then every event of its job observed on the part.
 */
export function partHistoryEpcis(history: TPartHistory): EpcisEventInput[] {
  const { part, build, design } = history;
  const partUri = uuidUri(part.id);
  const machine = uuidUri(part.deviceId);
  const licence = { orderId: part.orderId, authorizationId: part.authorizationId, dsiId: design.dsiId };
  const jobEvents = history.events.filter((entry) => entry.event.jobId === build.jobId);
  const finished = build.finishedAt ?? jobEvents.at(-1)?.event.occurredAt ?? part.dateCreated;
  // a part exists once its job ended, failed or was cancelled: only an ended job made its parts, and
  // an inspection that fails one later does not unmake it (its inspection is an event of its own)
  const made = build.state === 'ended';
  return [
    {
      type: 'TransformationEvent',
      eventTime: finished,
      outputEPCList: [partUri],
      transformationID: uuidUri(build.buildId),
      bizStep: 'commissioning',
      readPoint: machine,
      extensions: {
        ...licence,
        dsiVersion: String(design.dsiVersion),
        designDigest: design.digestValue,
        jobId: build.jobId,
        buildState: build.state,
      },
    },
    {
      type: 'ObjectEvent',
      eventTime: finished,
      epcList: [partUri],
      ...(made
        ? { action: 'ADD' as const, bizStep: 'commissioning' as const, disposition: 'active' as const }
        : { action: 'DELETE' as const, bizStep: 'destroying' as const, disposition: 'destroyed' as const }),
      readPoint: machine,
      extensions: {
        ...licence,
        ...(part.serialNumber ? { serialNumber: part.serialNumber } : {}),
        partQmsState: part.partQmsState,
      },
    },
    ...jobEvents.map((entry) => observation(entry, [partUri])),
  ];
}
