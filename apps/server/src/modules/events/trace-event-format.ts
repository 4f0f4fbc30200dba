import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { createHash } from 'node:crypto';
import {
  stpSignedContent,
  type TCanonicalTraceEvent,
  type TStoredTraceEventProof,
  type TTraceEventBatchProof,
  type TTraceEventBody,
  ZTraceEventSignedBatch,
} from '@manifold/contract';
import { firstCertificateKey, parseCertificateBundle } from '../../crypto/certificates.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import { parseXmlSafely, verifyXmlSignature, XMLDSIG_NS } from '../../crypto/xml-signature.js';
import { canonicalJson, MAX_NESTING } from '../../lib/canonical-json.js';

/**
 * The forms of a trace event and how each is checked; no database, no server, so the offline
 * verifier (`npm run verify-history`) uses exactly what the server uses. See docs/traceability.md.
 */
export const TRACE_EVENT_NS = 'urn:manifold:trace-event:1';
export const STP_EVENT_PATH = '/stp/event';

/** Element names of the XML form, in document order, with the body field each carries. */
const XML_FIELDS = [
  ['EventId', 'eventId'],
  ['DeviceId', 'deviceId'],
  ['Kind', 'kind'],
  ['OccurredAt', 'occurredAt'],
  ['AuthorizationId', 'authorizationId'],
  ['JobId', 'jobId'],
  ['Quantity', 'quantity'],
  ['PreviousHash', 'previousHash'],
] as const;
const ELEMENT_NODE = 1;

/** This server's own chain of the events it originates (no machine has this id). */
export const SERVER_CHAIN_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Where a Trace instance chains the events a reporting instance originates: every instance's own
 * chain is {@link SERVER_CHAIN_ID}, so each is kept under a UUID (version 8) derived from that
 * instance's registration id, apart from the others' and from this server's own.
 */
export function reportedServerChainId(manageId: string): string {
  const hex = createHash('sha256').update(`manifold:server-chain:${manageId}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A document that is not a trace event (wrong element names, repeated fields). */
export class TraceEventFormatError extends Error {}

/** Refuses a document whose elements nest more than {@link MAX_NESTING} levels deep (walked without recursion). */
function assertShallowXml(root: Element): void {
  const pending: [Element, number][] = [[root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [element, depth] = next;
    if (depth > MAX_NESTING) {
      throw new TraceEventFormatError(`The document nests more than ${MAX_NESTING} elements deep`);
    }
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === ELEMENT_NODE) pending.push([child as Element, depth + 1]);
    }
  }
}

/** Every field present (absent optional ones as null), so the canonical JSON is one string. */
export function canonicalEvent(body: TTraceEventBody, deviceId: string): TCanonicalTraceEvent {
  return {
    eventId: body.eventId,
    deviceId,
    kind: body.kind,
    occurredAt: body.occurredAt,
    authorizationId: body.authorizationId,
    jobId: body.jobId,
    quantity: body.quantity,
    previousHash: body.previousHash,
    data: body.data,
  };
}

/**
 * SHA-256 (lower-case hex) of the canonical JSON of the canonical event: the chain's link. The
 * canonical JSON is written straight from the event's known shape — its members in sorted order,
 * `data`'s names sorted — the same bytes `canonicalJson` writes, without its generic walk (it runs
 * once per event of every batch).
 */
export function eventHash(event: TCanonicalTraceEvent): string {
  const data: Record<string, string> = {};
  for (const name of Object.keys(event.data).sort()) data[name] = event.data[name]!;
  const canonical = JSON.stringify({
    authorizationId: event.authorizationId,
    data,
    deviceId: event.deviceId,
    eventId: event.eventId,
    jobId: event.jobId,
    kind: event.kind,
    occurredAt: event.occurredAt,
    previousHash: event.previousHash,
    quantity: event.quantity,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** The XML form of an event, unsigned (a machine signs it with an enveloped XML-DSig). */
export function traceEventXml(event: TCanonicalTraceEvent): string {
  const document = new DOMParser().parseFromString(`<TraceEvent xmlns="${TRACE_EVENT_NS}"/>`, 'text/xml');
  const root = document.documentElement!;
  const add = (name: string, text: string, attributes: Record<string, string> = {}) => {
    const element = document.createElementNS(TRACE_EVENT_NS, name);
    for (const [attribute, value] of Object.entries(attributes)) element.setAttribute(attribute, value);
    element.appendChild(document.createTextNode(text));
    root.appendChild(element);
  };
  for (const [element, field] of XML_FIELDS) {
    const value = event[field];
    if (value !== null) add(element, String(value));
  }
  for (const [name, value] of Object.entries(event.data)) add('Data', value, { name });
  return new XMLSerializer().serializeToString(document);
}

/**
 * The fields of a (verified) `TraceEvent` element as the JSON body and device they stand for;
 * the body is still to be checked against the contract's schema. `Quantity` becomes a number when
 * it is one, so a malformed quantity fails the schema like a JSON one. `unverified`: the document
 * still holds its signature (only to read which machine it names).
 */
export function fieldsOfEventXml(root: Element, unverified = false): { deviceId: string; body: Record<string, unknown> } {
  if (root.namespaceURI !== TRACE_EVENT_NS || root.localName !== 'TraceEvent') {
    throw new TraceEventFormatError(`The document element must be TraceEvent in ${TRACE_EVENT_NS}`);
  }
  const body: Record<string, unknown> = {};
  // a Map: a name such as `constructor` is a data name like any other
  const data = new Map<string, string>();
  let deviceId: string | undefined;
  for (let child = root.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE) {
      if ((child.nodeValue ?? '').trim() !== '') throw new TraceEventFormatError('Text outside the fields of TraceEvent');
      continue;
    }
    const element = child as Element;
    if (unverified && element.namespaceURI === XMLDSIG_NS) continue; // the signature, not yet checked
    const text = element.textContent ?? '';
    if (element.namespaceURI !== TRACE_EVENT_NS) throw new TraceEventFormatError(`Unexpected element ${element.nodeName}`);
    if (element.localName === 'Data') {
      const name = element.getAttribute('name') ?? '';
      if (data.has(name)) throw new TraceEventFormatError(`Data ${name} appears twice`);
      data.set(name, text);
      continue;
    }
    const field = XML_FIELDS.find(([name]) => name === element.localName)?.[1];
    if (!field) throw new TraceEventFormatError(`Unexpected element ${element.localName}`);
    if (field in body || (field === 'deviceId' && deviceId !== undefined)) {
      throw new TraceEventFormatError(`${element.localName} appears twice`);
    }
    if (field === 'deviceId') deviceId = text;
    else body[field] = field === 'quantity' && /^\d{1,9}$/.test(text) ? Number(text) : text;
  }
  if (deviceId === undefined) throw new TraceEventFormatError('DeviceId is missing');
  body.data = Object.fromEntries(data);
  return { deviceId, body };
}

/** The machine an XML event names, read before its signature can be checked (no DTD, no entities, no deep nesting). */
export function deviceOfEventXml(xml: string): string {
  const root = parseXmlSafely(xml).documentElement!;
  assertShallowXml(root);
  return fieldsOfEventXml(root, true).deviceId;
}

/** What checking a proof answers: the signed device and body. */
export type ProofCheck = (proof: TStoredTraceEventProof) => Promise<{ deviceId: string; body: Record<string, unknown> }>;

/** A signed STP envelope of `/stp/event` (a single event's, or a batch-signed one). */
export type SignedEventEnvelope = TTraceEventBatchProof['envelope'];

/** A batch-signed envelope's id: the SHA-256 (lower-case hex) of its signature. */
export function batchIdOf(envelope: Pick<SignedEventEnvelope, 'signature'>): string {
  return createHash('sha256').update(envelope.signature, 'utf8').digest('hex');
}

/** The envelope's signature over path `/stp/event` against the key (a `CryptoError` when it does not verify). */
async function verifyEventEnvelope(envelope: SignedEventEnvelope, signingCertificate: string): Promise<void> {
  const { signature, ...unsigned } = envelope;
  await verifyDetachedJws(
    signature,
    canonicalJson(stpSignedContent(unsigned, STP_EVENT_PATH)),
    firstCertificateKey(signingCertificate),
  );
}

/**
 * A checker of proofs against one machine's signing certificate (PEM, or a bundle whose first
 * certificate is the machine's; its key is read once, {@link firstCertificateKey}). A batch
 * reference is checked against its envelope among `batches` (by id): the envelope's signature
 * once per batch, then the event at the reference's index is the signed body. A proof's signature
 * that does not verify throws a `CryptoError`; a signed document that is not a trace event, or a
 * reference to a batch or index that is not there, {@link TraceEventFormatError}.
 */
export function proofChecker(
  signingCertificate: string,
  batches: ReadonlyMap<string, SignedEventEnvelope> = new Map(),
): ProofCheck {
  const verifiedBatches = new Map<string, Promise<Record<string, unknown>[]>>();
  const verifiedBatch = async (batchId: string): Promise<Record<string, unknown>[]> => {
    const envelope = batches.get(batchId);
    if (!envelope) throw new TraceEventFormatError(`The batch ${batchId} is not given`);
    if (batchIdOf(envelope) !== batchId)
      throw new TraceEventFormatError(`The batch ${batchId} is not the batch of that signature`);
    const form = ZTraceEventSignedBatch.safeParse(envelope.body);
    if (!form.success) throw new TraceEventFormatError(`The batch ${batchId} is not a batch-signed envelope`);
    await verifyEventEnvelope(envelope, signingCertificate);
    return form.data.batch;
  };
  return async (proof) => {
    if (proof.format === 'stp') {
      await verifyEventEnvelope(proof.envelope, signingCertificate);
      return { deviceId: proof.envelope.deviceId, body: proof.envelope.body };
    }
    if (proof.format === 'stp-batch') {
      let events = verifiedBatches.get(proof.batch);
      if (!events) verifiedBatches.set(proof.batch, (events = verifiedBatch(proof.batch)));
      const body = (await events)[proof.index];
      if (!body) throw new TraceEventFormatError(`The batch ${proof.batch} has no event ${proof.index}`);
      return { deviceId: batches.get(proof.batch)!.deviceId, body };
    }
    return fieldsOfEventXml(verifyXmlSignature(proof.xml, parseCertificateBundle(signingCertificate)[0]!.pem).element);
  };
}
