import { createHash } from 'node:crypto';
import type { TEpcisDocument } from '@manifold/contract';

/**
 * EPCIS 2.0 JSON-LD documents of Manifold's traceability data and the CBV 2.0 event hash of
 * each event (docs/traceability.md). Only the fields this module writes are hashed, by the rules of
 * the CBV 2.0 "EPCIS Event Hash ID" algorithm for them: the canonical property order, `key=value`
 * pairs concatenated without separators, list members sorted, bare CBV words expanded to their
 * `https://ref.gs1.org/cbv/` URIs, timestamps in UTC with milliseconds, user extensions as
 * `{namespace}name=value` sorted at the end; the SHA-256 of the UTF-8 pre-hash string as
 * `ni:///sha-256;<hex>?ver=CBV2.0`.
 */

export const EPCIS_CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';
/** The namespace of Manifold's extension fields (prefix `manifold`). */
export const MANIFOLD_NAMESPACE = 'urn:manifold:epcis:';

/** CBV words this module uses, by vocabulary. */
export type BizStep = 'commissioning' | 'inspecting' | 'destroying' | 'other';
export type Disposition = 'active' | 'conformant' | 'non_conformant' | 'destroyed';

/** What one exported event says (every field optional but its time). */
export interface EpcisEventInput {
  type: 'ObjectEvent' | 'TransformationEvent';
  /** ISO-8601 with any offset; written and hashed in UTC. */
  eventTime: string;
  epcList?: string[];
  outputEPCList?: string[];
  action?: 'ADD' | 'OBSERVE' | 'DELETE';
  transformationID?: string;
  bizStep?: BizStep;
  disposition?: Disposition;
  /** The machine, as a URI. */
  readPoint?: string;
  /** Manifold's extension fields (`manifold:<name>`), text values. */
  extensions?: Record<string, string>;
}

export type EpcisEvent = Record<string, unknown> & { eventID: string };

function utcMillis(time: string): string {
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) throw new Error(`Not a time: ${time}`);
  return date.toISOString();
}

const sorted = (values: readonly string[]) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The CBV 2.0 pre-hash string of an event made by this module. */
export function preHashString(input: EpcisEventInput): string {
  const parts: string[] = [`eventType=${input.type}`, `eventTime=${utcMillis(input.eventTime)}`, 'eventTimeZoneOffset=+00:00'];
  const list = (name: string, values: readonly string[] | undefined) => {
    if (values && values.length > 0) parts.push(name + sorted(values.map((value) => `epc=${value.trim()}`)).join(''));
  };
  list('epcList', input.epcList);
  list('outputEPCList', input.outputEPCList);
  if (input.action) parts.push(`action=${input.action}`);
  if (input.transformationID) parts.push(`transformationID=${input.transformationID.trim()}`);
  if (input.bizStep) parts.push(`bizStep=https://ref.gs1.org/cbv/BizStep-${input.bizStep}`);
  if (input.disposition) parts.push(`disposition=https://ref.gs1.org/cbv/Disp-${input.disposition}`);
  if (input.readPoint) parts.push(`readPointid=${input.readPoint.trim()}`);
  const extensions = Object.entries(input.extensions ?? {}).map(
    ([name, value]) => `{${MANIFOLD_NAMESPACE}}${name}=${value.trim()}`,
  );
  parts.push(...sorted(extensions));
  return parts.join('');
}

/** The event's CBV 2.0 hash: `ni:///sha-256;<hex>?ver=CBV2.0`. */
export function epcisEventHash(input: EpcisEventInput): string {
  return `ni:///sha-256;${createHash('sha256').update(preHashString(input), 'utf8').digest('hex')}?ver=CBV2.0`;
}

/** The event in EPCIS 2.0 JSON-LD, its hash as `eventID`. */
export function epcisEvent(input: EpcisEventInput): EpcisEvent {
  const event: Record<string, unknown> = {
    type: input.type,
    eventID: epcisEventHash(input),
    eventTime: utcMillis(input.eventTime),
    eventTimeZoneOffset: '+00:00',
  };
  // an empty list is left out, as it adds nothing to the hash
  if (input.epcList && input.epcList.length > 0) event.epcList = input.epcList;
  if (input.outputEPCList && input.outputEPCList.length > 0) event.outputEPCList = input.outputEPCList;
  if (input.action) event.action = input.action;
  if (input.transformationID) event.transformationID = input.transformationID;
  if (input.bizStep) event.bizStep = input.bizStep;
  if (input.disposition) event.disposition = input.disposition;
  if (input.readPoint) event.readPoint = { id: input.readPoint };
  for (const [name, value] of Object.entries(input.extensions ?? {})) event[`manifold:${name}`] = value;
  return event as EpcisEvent;
}

/** An EPCIS 2.0 JSON-LD document of the events. */
export function epcisDocument(events: EpcisEventInput[], creationDate: string): TEpcisDocument {
  return {
    '@context': [EPCIS_CONTEXT, { manifold: MANIFOLD_NAMESPACE }],
    type: 'EPCISDocument' as const,
    schemaVersion: '2.0' as const,
    creationDate: utcMillis(creationDate),
    epcisBody: { eventList: events.map(epcisEvent) },
  };
}

export const uuidUri = (id: string) => `urn:uuid:${id}`;
