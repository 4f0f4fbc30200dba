import {
  authorizationEventKinds,
  isJobEventKind,
  TRACE_HISTORY_FORMAT,
  TRACE_EVENT_BATCH_MAX,
  ZTraceEventBatch,
  ZTraceEventBody,
  ZTraceEventSignedBatch,
  ZTraceEventFile,
  ZForwardedEvent,
  type TChainFinding,
  type TPage,
  type TPageQuery,
  type TStpEnvelope,
  type TTraceEventBatchResult,
  type TTraceEventBody,
  type TTraceEventEntry,
  type TTraceEventKind,
  type TStoredTraceEventProof,
  type TTraceEventProof,
  type TTraceEventReceipt,
  type TTraceEventUploadResult,
  type TTraceHistory,
  formatPath,
} from '@manifold/contract';
import type { z } from 'zod';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import type { Database } from '../../db/database.js';
import { type Dialect, isUniqueViolation } from '../../db/dialect.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import type { TraceChainRow, TraceEventRow } from '../../db/schema-trace.js';
import { WriteSet } from '../../db/write-set.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { MAX_NESTING, nestsDeeperThan } from '../../lib/canonical-json.js';
import { identifierErrors } from '../../lib/identifier-errors.js';
import { assertCarryableText, parseJsonText } from '../../plugins/input-hygiene.js';
import { isoNow } from '../../lib/time.js';
import { type AuditRecord, AuditRepository, recordManyWith } from '../audit/audit.repository.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import type { StpService } from '../licensing/stp.service.js';
import type { MessageHandler } from '../outbox/peer-messages.service.js';
import { parseApl } from '../registrations/apl-checks.js';
import { traceEnabled } from '../settings/trace-enabled.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { BuildsRepository } from './builds.repository.js';
import { batchRow, type EventAuthorization, EventsRepository } from './events.repository.js';
import { traceEventEntry } from './entries.js';
import { epcisDocument } from './epcis.js';
import { eventSearchEpcis } from './epcis-export.js';
import { applyJobEvent } from './job-effects.js';
import { receiveForwardedBatch, receiveReportedDevice } from './peer-machines.js';
import {
  batchIdOf,
  canonicalEvent,
  deviceOfEventXml,
  eventHash,
  type ProofCheck,
  proofChecker,
  reportedServerChainId,
  SERVER_CHAIN_ID,
  type SignedEventEnvelope,
  STP_EVENT_PATH,
  TraceEventFormatError,
} from './trace-event-format.js';

/** An event whose signature and content were checked, ready to be chained and stored. */
interface CheckedEvent {
  device: DeviceRow;
  body: TTraceEventBody;
  /** Its hash in the canonical form (the chain's link). */
  hash: string;
  authorization: EventAuthorization | null;
  proof: TStoredTraceEventProof;
  source: 'stp' | 'xml' | 'upload';
  sourceIp: string;
  /** Where it is in the request, for the field of a refusal. */
  at: string;
}

/** What storing an event answered: its receipt, and whether it was stored before. */
interface Stored {
  receipt: TTraceEventReceipt;
  repeated: boolean;
}

/** The machine's chain as the next event finds it. */
function findingOf(previousHash: string | null, headHash: string | null, knownHash: boolean): TChainFinding | null {
  if (previousHash === headHash) return null;
  return previousHash !== null && !knownHash ? 'gap' : 'fork';
}

function receiptOf(row: Pick<TraceEventRow, 'event_id' | 'event_hash' | 'chain_finding'>): TTraceEventReceipt {
  return { eventId: row.event_id, eventHash: row.event_hash, chainFinding: row.chain_finding };
}

/**
 * Events are stored in transactions of at most this many: a live batch (at most
 * {@link TRACE_EVENT_BATCH_MAX}) is one transaction, an uploaded file of up to 10,000 several.
 */
const EVENTS_PER_TRANSACTION = TRACE_EVENT_BATCH_MAX;

/**
 * What a request writes first in each transaction that stores its events (the first only): its
 * nonce, its batch's envelope — added to the transaction's writes, sent with the events'.
 */
type FirstWrites = (trx: Kysely<DB>, writes: WriteSet) => Promise<void>;

/** One event to chain (see {@link appendToChain}). */
interface ChainedEvent {
  deviceId: string;
  body: TTraceEventBody;
  hash: string;
  orderId: string | null;
  dsiId: string | null;
  source: TraceEventRow['source'];
  proof: string;
  actor: string;
  sourceIp: string;
  /** When it arrived (default: now). */
  now?: string;
  /** The audit record of its arrival, when not the record of its kind (a forwarded event). */
  audit?: { type: 'forwardedEventReceived'; details: Record<string, unknown> };
}

/**
 * Chains, stores and audits events of one chain, in this order, in the transaction that holds the
 * chain's lock: each event's finding against the head left by the one before (the chain read
 * once); the rows, the new head and the audit records of their kinds (and of each break) added to
 * `writes`, sent by the caller with the transaction's other writes (`db/write-set.ts`).
 */
async function appendToChain(
  trx: Kysely<DB>,
  dialect: Dialect,
  writes: WriteSet,
  chain: TraceChainRow,
  events: ChainedEvent[],
): Promise<TraceEventRow[]> {
  const repository = new EventsRepository(trx, dialect);
  const rows: TraceEventRow[] = [];
  const records: AuditRecord[] = [];
  const hashes = new Set<string>();
  let head = chain.head_hash;
  let length = chain.length;
  let now = isoNow();
  for (const event of events) {
    const previous = event.body.previousHash;
    const known =
      previous !== null && previous !== head && (hashes.has(previous) || (await repository.hasHash(event.deviceId, previous)));
    const finding = findingOf(previous, head, known);
    now = event.now ?? now;
    length += 1;
    const row: TraceEventRow = {
      event_id: event.body.eventId,
      device_id: event.deviceId,
      sequence: length,
      kind: event.body.kind,
      occurred_at: event.body.occurredAt,
      authorization_id: event.body.authorizationId,
      order_id: event.orderId,
      dsi_id: event.dsiId,
      job_id: event.body.jobId,
      quantity: event.body.quantity,
      data: JSON.stringify(event.body.data),
      previous_hash: previous,
      event_hash: event.hash,
      chain_finding: finding,
      source: event.source,
      proof: event.proof,
      received_at: now,
    };
    rows.push(row);
    records.push(
      event.audit
        ? {
            type: event.audit.type,
            actor: event.actor,
            subject: event.deviceId,
            sourceIp: event.sourceIp,
            details: event.audit.details,
          }
        : {
            type: event.body.kind,
            actor: event.actor,
            subject: row.order_id ?? event.deviceId,
            sourceIp: event.sourceIp,
            details: {
              eventId: row.event_id,
              authorizationId: row.authorization_id,
              jobId: row.job_id,
              quantity: row.quantity,
              occurredAt: row.occurred_at,
              ...(event.source === 'server' ? event.body.data : {}),
            },
          },
    );
    if (finding) {
      records.push({
        type: 'traceChainBroken',
        actor: event.actor,
        subject: event.deviceId,
        sourceIp: event.sourceIp,
        details: { eventId: row.event_id, finding, previousHash: previous, expectedPreviousHash: head },
      });
    }
    hashes.add(event.hash);
    head = event.hash;
  }
  if (rows.length === 0) return rows;
  repository.insertMany(writes, rows);
  repository.advanceChain(writes, chain.device_id, length, head!, now);
  recordManyWith(writes, records);
  return rows;
}

/** {@link appendToChain} with the writes sent at once (nothing else to send with them). */
async function appendToChainNow(
  trx: Kysely<DB>,
  dialect: Dialect,
  chain: TraceChainRow,
  events: ChainedEvent[],
): Promise<TraceEventRow[]> {
  const writes = new WriteSet(trx, dialect.kind);
  const rows = await appendToChain(trx, dialect, writes, chain, events);
  await writes.flush();
  return rows;
}

/** The counts of a batch or file. */
function summary(stored: Stored[]): TTraceEventUploadResult {
  const result: TTraceEventUploadResult = { received: stored.length, stored: 0, repeated: 0, findings: 0 };
  for (const { receipt, repeated } of stored) {
    if (repeated) result.repeated += 1;
    else result.stored += 1;
    if (!repeated && receipt.chainFinding) result.findings += 1;
  }
  return result;
}

const eventIdTaken = (field: string) =>
  new AppError('traceEventIdNotValid', { field, description: 'This eventId was already reported for a different event' });

/** The body against the contract: a malformed identifier answers its token, anything else 400. */
function parseBody(body: unknown, at: string): TTraceEventBody {
  const parsed = ZTraceEventBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const paths = parsed.error.issues.map((issue) => issue.path);
  const identifiers = identifierErrors(ZTraceEventBody, paths, at);
  if (identifiers) throw identifiers;
  const issue = parsed.error.issues[0]!;
  const field = formatPath(issue.path, at);
  throw new AppError('malformedRequest', { field, description: `${field}: ${issue.message}` });
}

/** A list form of `POST /stp/event` against its schema: anything wrong answers 400 naming the field. */
function parseList<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const field = formatPath(parsed.error.issues[0]!.path, 'body');
  throw new AppError('malformedRequest', { field, description: `${field}: ${parsed.error.issues[0]!.message}` });
}

/** A Trace instance takes what its peers forward while `traceEnabled`; else `traceFuncitionalityNotEnabled`. */
async function takingPeerEvents(trx: Kysely<DB>): Promise<void> {
  if (!(await traceEnabled(new SettingsRepository(trx)))) {
    throw new AppError('traceFuncitionalityNotEnabled', { description: 'This instance does not take events from peers' });
  }
}

/**
 * Events machines report (docs/traceability.md): signed by the machine's registered signing key
 * (an STP envelope, an enveloped XML-DSig, either in a machine's batch or an uploaded file),
 * stored once by `eventId`, chained per machine. Events are stored, chained, audited and have
 * their effects on builds, parts and the order (job-effects.ts) in transactions of up to
 * {@link EVENTS_PER_TRANSACTION} (a single event: a batch of one); the answer is sent after the
 * commit.
 */
export class EventsService {
  constructor(
    private readonly database: Database,
    private readonly stp: StpService,
    /** Queues newly stored events for the Trace instances (the event queue), in its transaction. */
    private readonly forward?: (trx: Kysely<DB>, rows: TraceEventRow[]) => Promise<void>,
  ) {}

  /** Machines whose chain row this process has seen exist (chains are never deleted). */
  private readonly chains = new Set<string>();

  private repository(db = this.database.db): EventsRepository {
    return new EventsRepository(db, this.database.dialect);
  }

  /**
   * `POST /stp/event`: the envelope is checked like every machine request (signature, time,
   * nonce). Its body is one event, the list form of the machine's signed events, or a batch
   * signed as a whole (`batch`).
   */
  async receiveStp(envelope: TStpEnvelope, sourceIp: string): Promise<TTraceEventReceipt | TTraceEventBatchResult> {
    if ('batch' in envelope.body) return this.receiveSignedBatch(envelope, sourceIp);
    if ('events' in envelope.body) return this.receiveBatch(envelope, sourceIp);
    const body = parseBody(envelope.body, 'body');
    const { caller, spendNonce } = await this.stp.check(envelope, STP_EVENT_PATH, sourceIp);
    const proof: TTraceEventProof = { format: 'stp', envelope };
    const event = await this.checked(caller.device, body, proof, 'stp', sourceIp, 'body', new Map());
    const [stored] = await this.ingest([event], spendNonce);
    return stored!.receipt;
  }

  /**
   * A machine's batch: every event signed by the machine that signed the envelope, checked before
   * any is stored (one refused refuses the batch, naming it), then stored in one transaction.
   */
  private async receiveBatch(envelope: TStpEnvelope, sourceIp: string): Promise<TTraceEventBatchResult> {
    const parsed = parseList(ZTraceEventBatch, envelope.body);
    const { caller, spendNonce } = await this.stp.check(envelope, STP_EVENT_PATH, sourceIp);
    const { device } = caller;
    const checked = await this.checkProofs(parsed.events, 'body', 'stp', sourceIp, new Map(), async (deviceId, at) => {
      if (deviceId !== device.id) {
        throw new AppError('traceEventSignatureInvalid', {
          field: `${at}.deviceId`,
          description: 'A batch carries the events of the machine that signs it',
        });
      }
      return device;
    });
    const stored = await this.ingest(checked, spendNonce);
    return { ...summary(stored), events: stored.map((event) => event.receipt) };
  }

  /**
   * A batch signed as a whole: the envelope's one signature (checked like every machine request)
   * covers every event it lists, so each event is only read against the contract and its
   * authorization, hashed, and given its place in the batch as its proof. The envelope is stored
   * once, in the transaction that stores the events and spends its nonce; otherwise like a batch
   * of the list form (all or nothing, repeats, one transaction).
   */
  private async receiveSignedBatch(envelope: TStpEnvelope, sourceIp: string): Promise<TTraceEventBatchResult> {
    const parsed = parseList(ZTraceEventSignedBatch, envelope.body);
    const { caller, spendNonce, replayed } = await this.stp.check(envelope, STP_EVENT_PATH, sourceIp);
    const batch = batchIdOf(envelope);
    const authorizations = new Map<string, EventAuthorization | undefined>();
    const checked: CheckedEvent[] = [];
    for (const [index, item] of parsed.batch.entries()) {
      const at = `body.batch[${index}]`;
      const proof: TStoredTraceEventProof = { format: 'stp-batch', batch, index };
      checked.push(await this.checked(caller.device, parseBody(item, at), proof, 'stp', sourceIp, at, authorizations));
    }
    const stored = await this.ingest(checked, async (trx, writes) => {
      await spendNonce(writes);
      const row = batchRow(batch, envelope, isoNow());
      await this.repository(trx).insertBatches(writes, [row], { unlessStored: false, duplicate: replayed });
    });
    return { ...summary(stored), events: stored.map((event) => event.receipt) };
  }

  /** `POST /apl/event`: a `TraceEvent` document signed by the machine it names. */
  async receiveXml(xml: string, sourceIp: string): Promise<TTraceEventReceipt> {
    const device = await this.machineOf(this.readXmlDevice(xml), { approved: true });
    const proof: TTraceEventProof = { format: 'xml', xml };
    const body = await this.verified(proof, proofChecker(device.signing_certificate), device, 'body');
    const [stored] = await this.ingest([await this.checked(device, body, proof, 'xml', sourceIp, 'body', new Map())]);
    return stored!.receipt;
  }

  /**
   * `POST /ui/event/upload`: a file of signed events (the `events` of an export). Every event is
   * checked before any is stored, an `eventId` taken by another event (stored or earlier in the
   * file) too; then they are stored in file order like a live batch (repeats counted, not stored
   * again), {@link EVENTS_PER_TRANSACTION} per transaction.
   */
  async upload(file: Buffer, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TTraceEventUploadResult> {
    let json: unknown;
    try {
      json = parseJsonText(file.toString('utf8'));
    } catch {
      throw new AppError('traceEventMalformed', { field: 'file', description: 'The file is not JSON' });
    }
    if (nestsDeeperThan(json, MAX_NESTING)) {
      throw new AppError('traceEventMalformed', {
        field: 'file',
        description: `The file nests more than ${MAX_NESTING} levels deep`,
      });
    }
    // what a machine could not send live (NUL, characters XML cannot carry) is not taken from a file either
    assertCarryableText(json, 'file');
    const parsed = ZTraceEventFile.safeParse(json);
    if (!parsed.success) {
      const field = formatPath(parsed.error.issues[0]!.path, 'file');
      throw new AppError('traceEventMalformed', { field, description: `${field}: ${parsed.error.issues[0]!.message}` });
    }
    const batches = new Map(parsed.data.batches.map((batch) => [batch.batchId, batch.envelope]));
    const checked = await this.checkProofs(parsed.data.events, 'file', 'upload', caller.sourceIp, batches, (deviceId, at) =>
      this.machineOf(deviceId, { approved: false }, at),
    );
    const hashes = new Map<string, string>();
    for (let start = 0; start < checked.length; start += EVENTS_PER_TRANSACTION) {
      const part = checked.slice(start, start + EVENTS_PER_TRANSACTION);
      const stored = await this.repository().findMany([...new Set(part.map((event) => event.body.eventId))]);
      for (const event of part) {
        const known = hashes.get(event.body.eventId) ?? stored.get(event.body.eventId)?.event_hash;
        if (known !== undefined && known !== event.hash) throw eventIdTaken(`${event.at}.eventId`);
        hashes.set(event.body.eventId, event.hash);
      }
    }
    const now = isoNow();
    const referenced = new Set(checked.flatMap(({ proof }) => (proof.format === 'stp-batch' ? [proof.batch] : [])));
    const rows = [...referenced].map((batchId) => batchRow(batchId, batches.get(batchId)!, now));
    const result = summary(
      await this.ingest(checked, (trx, writes) => this.repository(trx).insertBatches(writes, rows, { unlessStored: true })),
    );
    await new AuditRepository(this.database.db, this.database.dialect).recordBy(caller, 'traceEventsUploaded', 'events', {
      ...result,
    });
    return result;
  }

  /**
   * The signed events of a list form (`<at>.events[i]`), each checked (signature against its
   * machine's certificate, read once per machine — a batch reference against its envelope among
   * `batches`, each envelope's signature once; content; authorization). The signatures are
   * checked all at once (the thread pool's cores); the first event that fails, in list order, is
   * the one the refusal names.
   */
  private async checkProofs(
    events: { proof: TStoredTraceEventProof }[],
    at: string,
    source: CheckedEvent['source'],
    sourceIp: string,
    batches: ReadonlyMap<string, SignedEventEnvelope>,
    machine: (deviceId: string, at: string) => Promise<DeviceRow>,
  ): Promise<CheckedEvent[]> {
    const machines = new Map<string, { device: DeviceRow; check: ProofCheck }>();
    const signed: ({ field: string; device: DeviceRow; body: Promise<TTraceEventBody> } | { field: string; refused: unknown })[] =
      [];
    for (const [index, { proof }] of events.entries()) {
      const field = `${at}.events[${index}]`;
      try {
        const deviceId = this.deviceOfProof(proof, batches, field);
        let known = machines.get(deviceId);
        if (!known) {
          const device = await machine(deviceId, field);
          machines.set(deviceId, (known = { device, check: proofChecker(device.signing_certificate, batches) }));
        }
        const body = this.verified(proof, known.check, known.device, field);
        body.catch(() => undefined); // awaited below, in order
        signed.push({ field, device: known.device, body });
      } catch (error) {
        signed.push({ field, refused: error });
      }
    }
    const authorizations = new Map<string, EventAuthorization | undefined>();
    const checked: CheckedEvent[] = [];
    for (const [index, entry] of signed.entries()) {
      if ('refused' in entry) throw entry.refused;
      const proof = events[index]!.proof;
      checked.push(await this.checked(entry.device, await entry.body, proof, source, sourceIp, entry.field, authorizations));
    }
    return checked;
  }

  /** The machine a proof names (a batch reference: its envelope's, which must be among `batches`). */
  private deviceOfProof(proof: TStoredTraceEventProof, batches: ReadonlyMap<string, SignedEventEnvelope>, at: string): string {
    if (proof.format === 'stp') return proof.envelope.deviceId;
    if (proof.format === 'xml') return this.readXmlDevice(proof.xml, at);
    const envelope = batches.get(proof.batch);
    if (!envelope) {
      throw new AppError('traceEventMalformed', { field: `${at}.proof.batch`, description: 'The file has no batch of this id' });
    }
    return envelope.deviceId;
  }

  /** `GET /ui/event/list`: newest first, optionally of one design. */
  async list(page: TPageQuery, filter: { dsiId?: string | undefined }): Promise<TPage<TTraceEventEntry>> {
    const found = await this.repository().list(page, filter);
    return { ...found, data: found.data.map(traceEventEntry) };
  }

  /** `GET /ui/event/epcis`: a page of the event search as an EPCIS 2.0 document. */
  async epcis(page: TPageQuery, filter: { dsiId?: string | undefined }) {
    const found = await this.list(page, filter);
    return epcisDocument(eventSearchEpcis(found.data), new Date().toISOString());
  }

  /**
   * `GET /ui/event/export`: the machine's whole history with its proofs, in chain order, and the
   * batch-signed envelopes its events name, each once (in the order the events first name them).
   */
  async history(deviceId: string): Promise<TTraceHistory> {
    const repository = this.repository();
    // a machine registered here, or one a reporting instance approved (its events forwarded here)
    const signingCertificate =
      (await new DevicesRepository(this.database.db).find(deviceId))?.signing_certificate ??
      (await repository.peerDeviceCertificate(deviceId));
    if (signingCertificate === undefined) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
    const events: TTraceHistory['events'] = [];
    /** The envelopes the events name, in the order they first do (null: not stored here — a forwarded event's). */
    const batches = new Map<string, SignedEventEnvelope | null>();
    const read = new Set<string>();
    for (let after = 0; ;) {
      const rows = await repository.history(deviceId, after, 1000);
      for (const row of rows) {
        const proof = JSON.parse(row.proof) as TStoredTraceEventProof;
        if (proof.format === 'stp-batch' && !batches.has(proof.batch)) batches.set(proof.batch, null);
        events.push({
          sequence: row.sequence,
          eventId: row.event_id,
          eventHash: row.event_hash,
          previousHash: row.previous_hash,
          chainFinding: row.chain_finding,
          receivedAt: row.received_at,
          proof,
        });
      }
      const named = [...batches.keys()].filter((batchId) => !read.has(batchId));
      for (const batchId of named) read.add(batchId);
      for (const [batchId, envelope] of await repository.batches(named)) batches.set(batchId, envelope);
      if (rows.length < 1000) break;
      after = rows[rows.length - 1]!.sequence;
    }
    return {
      format: TRACE_HISTORY_FORMAT,
      deviceId,
      signingCertificate,
      exportedAt: isoNow(),
      events,
      batches: [...batches].flatMap(([batchId, envelope]) => (envelope ? [{ batchId, envelope }] : [])),
    };
  }

  private readXmlDevice(xml: string, at = 'body'): string {
    try {
      return deviceOfEventXml(xml);
    } catch (error) {
      if (isCryptoError(error)) throw new AppError('traceEventMalformed', { field: at, description: error.message });
      throw this.formatFailure(error, at);
    }
  }

  /** Not a trace event, or XML with a DOCTYPE, entities, comments or processing instructions. */
  private formatFailure(error: unknown, at: string): unknown {
    if (error instanceof TraceEventFormatError || (isCryptoError(error) && error.reason === 'forbiddenXmlConstruct')) {
      return new AppError('traceEventMalformed', { field: at, description: error.message });
    }
    return error;
  }

  /** A registered machine; live reports also need it approved and enabled. */
  private async machineOf(deviceId: string, { approved }: { approved: boolean }, at = 'body'): Promise<DeviceRow> {
    const device = /^[0-9a-f-]{36}$/i.test(deviceId) ? await new DevicesRepository(this.database.db).find(deviceId) : undefined;
    if (!device || device.registration_state !== 'Approved') {
      if (device && approved) throw new AppError('deviceNotApproved', { field: `${at}.deviceId` });
      throw new AppError('traceEventSourceNotSupported', {
        field: `${at}.deviceId`,
        description: 'No approved machine is registered with this deviceId',
      });
    }
    if (approved && device.disabled === 1) throw new AppError('deviceNotApproved', { field: `${at}.deviceId` });
    return device;
  }

  /** The proof's signature against the machine's registered certificate, and its body against the contract. */
  private async verified(
    proof: TStoredTraceEventProof,
    check: ProofCheck,
    device: DeviceRow,
    at: string,
  ): Promise<TTraceEventBody> {
    let signed: { deviceId: string; body: Record<string, unknown> };
    try {
      signed = await check(proof);
    } catch (error) {
      const failure = this.formatFailure(error, at);
      if (failure !== error || !isCryptoError(error)) throw failure;
      throw new AppError('traceEventSignatureInvalid', { field: at, description: `${error.message}` });
    }
    if (signed.deviceId !== device.id) throw new AppError('traceEventSignatureInvalid', { field: `${at}.deviceId` });
    return parseBody(signed.body, at);
  }

  /**
   * The authorization rule: a licence's event names one of this machine's authorizations that was
   * sent to it (each authorization read once per request: `authorizations`); `revocationReceived`
   * names one that was revoked.
   */
  private async checked(
    device: DeviceRow,
    body: TTraceEventBody,
    proof: TStoredTraceEventProof,
    source: CheckedEvent['source'],
    sourceIp: string,
    at: string,
    authorizations: Map<string, EventAuthorization | undefined>,
  ): Promise<CheckedEvent> {
    let authorization: EventAuthorization | null = null;
    if (body.authorizationId !== null) {
      if (!authorizations.has(body.authorizationId)) {
        authorizations.set(body.authorizationId, await this.repository().authorization(body.authorizationId));
      }
      authorization = authorizations.get(body.authorizationId) ?? null;
      if (!authorization || authorization.device_id !== device.id || authorization.state === 'authorized') {
        throw new AppError('authorizationNotAvailable', { field: `${at}.authorizationId` });
      }
    } else if (authorizationEventKinds.includes(body.kind)) {
      throw new AppError('authorizationNotAvailable', {
        field: `${at}.authorizationId`,
        description: `A ${body.kind} event names the authorization it belongs to`,
      });
    }
    if (body.kind === 'revocationReceived' && authorization?.state !== 'revoked') {
      throw new AppError('malformedRequest', {
        field: `${at}.authorizationId`,
        description: 'A revocationReceived event names an authorization that was revoked',
      });
    }
    if (isJobEventKind(body.kind) && body.jobId === null) {
      throw new AppError('malformedRequest', { field: `${at}.jobId`, description: `A ${body.kind} event names its jobId` });
    }
    const hash = eventHash(canonicalEvent(body, device.id));
    return { device, body, hash, authorization, proof, source, sourceIp, at };
  }

  /** Creates this server's own chain (once) before an event is recorded on it. */
  async prepareServerChain(): Promise<void> {
    await this.repository().ensureChain(SERVER_CHAIN_ID, isoNow());
  }

  /**
   * Takes the server chain's lock in the caller's transaction: a change that locks other rows too
   * (an inspection locks its parts) takes this lock first, so two such changes never wait on each
   * other in opposite orders.
   */
  async lockServerChain(trx: Kysely<DB>): Promise<void> {
    await this.repository(trx).lockChain(SERVER_CHAIN_ID);
  }

  /**
   * Records an event this server originates (an inspection's quality check, docs/quality.md) in
   * the caller's transaction: chained on the server's own chain (`deviceId` {@link SERVER_CHAIN_ID},
   * call {@link prepareServerChain} first), stored and audited like a machine's event, by the user
   * who caused it. It names the authorization and job of the part, so the part's history lists it.
   */
  async recordServerEvent(
    trx: Kysely<DB>,
    event: {
      kind: TTraceEventKind;
      authorization: EventAuthorization;
      jobId: string;
      data: Record<string, string>;
      proof: Record<string, unknown>;
    },
    caller: Pick<Caller, 'username' | 'sourceIp'>,
  ): Promise<TTraceEventReceipt> {
    const repository = this.repository(trx);
    const chain = (await repository.lockChain(SERVER_CHAIN_ID))!;
    const body: TTraceEventBody = {
      eventId: randomUUID(),
      kind: event.kind,
      occurredAt: isoNow(),
      authorizationId: event.authorization.id,
      jobId: event.jobId,
      quantity: null,
      previousHash: chain.head_hash,
      data: event.data,
    };
    const hash = eventHash(canonicalEvent(body, SERVER_CHAIN_ID));
    const [row] = await appendToChainNow(trx, this.database.dialect, chain, [
      {
        deviceId: SERVER_CHAIN_ID,
        body,
        hash,
        orderId: event.authorization.order_id,
        dsiId: event.authorization.dsi_id,
        source: 'server',
        proof: JSON.stringify({ format: 'server', ...event.proof }),
        actor: caller.username,
        sourceIp: caller.sourceIp,
      },
    ]);
    if (this.forward) await this.forward(trx, [row!]);
    return receiptOf(row!);
  }

  /**
   * Stores checked events in their order, {@link EVENTS_PER_TRANSACTION} per transaction: each
   * transaction locks the chains of its machines (in one order), reads which of its eventIds are
   * known, chains the new events of each machine at once ({@link appendToChain}), applies the job
   * events' effects in arrival order, and queues the new events for forwarding. An eventId already
   * stored, or earlier in the events, is a repeat: answered with the first receipt, stored once;
   * with other content, `traceEventIdNotValid`. Two first arrivals of one eventId from different
   * machines race on the primary key: the loser's transaction runs again and finds it. `first`
   * runs at the start of the first transaction: a machine request's nonce is spent there, so the
   * request commits once.
   */
  private async ingest(events: CheckedEvent[], first?: FirstWrites): Promise<Stored[]> {
    const stored: Stored[] = [];
    for (let start = 0; start < events.length; start += EVENTS_PER_TRANSACTION) {
      const work = start === 0 ? first : undefined;
      stored.push(...(await this.ingestTransaction(events.slice(start, start + EVENTS_PER_TRANSACTION), work)));
    }
    return stored;
  }

  /**
   * A first attempt takes every event for new (what a machine sends almost always is): no lookup
   * of known `eventId`s, one round trip less. A repeat among them fails its insert on the primary
   * key, the transaction rolls back whole (nonce included) and runs again looking them up; a
   * second violation is a first arrival of the same `eventId` racing from another machine, found
   * by a third run.
   */
  private async ingestTransaction(events: CheckedEvent[], first?: FirstWrites): Promise<Stored[]> {
    const devices = [...new Set(events.map((event) => event.device.id))].sort();
    for (const deviceId of devices) {
      if (this.chains.has(deviceId)) continue;
      await this.repository().ensureChain(deviceId, isoNow());
      this.chains.add(deviceId);
    }
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.database.transaction(async (trx) => {
          const writes = new WriteSet(trx, this.database.dialect.kind);
          if (first) await first(trx, writes);
          return this.ingestIn(trx, writes, devices, events, { lookUp: attempt > 0 });
        });
      } catch (error) {
        if (attempt < 2 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  private async ingestIn(
    trx: Kysely<DB>,
    writes: WriteSet,
    devices: string[],
    events: CheckedEvent[],
    { lookUp }: { lookUp: boolean },
  ): Promise<Stored[]> {
    const repository = this.repository(trx);
    const chains = new Map<string, TraceChainRow>();
    for (const deviceId of devices) chains.set(deviceId, (await repository.lockChain(deviceId))!);
    const known = lookUp ? await repository.findMany([...new Set(events.map((event) => event.body.eventId))]) : new Map();
    /** Per event: the stored row it repeats, or the index of the first event of its eventId here. */
    const firsts = new Map<string, number>();
    const fresh = new Map<string, CheckedEvent[]>();
    const outcome: (TraceEventRow | number)[] = [];
    for (const [index, event] of events.entries()) {
      const earlier = known.get(event.body.eventId) ?? firsts.get(event.body.eventId);
      const earlierHash = typeof earlier === 'number' ? events[earlier]!.hash : earlier?.event_hash;
      if (earlierHash !== undefined && earlierHash !== event.hash) throw eventIdTaken(`${event.at}.eventId`);
      if (earlier !== undefined) {
        outcome.push(earlier);
        continue;
      }
      firsts.set(event.body.eventId, index);
      outcome.push(index);
      const list = fresh.get(event.device.id);
      if (list) list.push(event);
      else fresh.set(event.device.id, [event]);
    }
    const rows = new Map<string, TraceEventRow>();
    for (const [deviceId, list] of fresh) {
      const chained = await appendToChain(
        trx,
        this.database.dialect,
        writes,
        chains.get(deviceId)!,
        list.map((event) => ({
          deviceId,
          body: event.body,
          hash: event.hash,
          orderId: event.authorization?.order_id ?? null,
          dsiId: event.authorization?.dsi_id ?? null,
          source: event.source,
          proof: JSON.stringify(event.proof),
          actor: `device:${deviceId}`,
          sourceIp: event.sourceIp,
        })),
      );
      for (const row of chained) rows.set(row.event_id, row);
    }
    // the nonce, the batch's envelope, the events, the chains' heads and the audit records: one
    // statement on PostgreSQL; the job effects below read the events' rows
    await writes.flush();
    const builds = new BuildsRepository(trx, this.database.dialect);
    const added: TraceEventRow[] = [];
    for (const [index, event] of events.entries()) {
      if (outcome[index] !== index) continue;
      const row = rows.get(event.body.eventId)!;
      added.push(row);
      if (event.authorization && isJobEventKind(event.body.kind)) {
        const job = { eventId: row.event_id, deviceId: row.device_id, body: event.body, authorization: event.authorization };
        await applyJobEvent(builds, job, row.received_at);
      }
    }
    if (this.forward && added.length > 0) await this.forward(trx, added);
    return events.map((event, index) => {
      const first = outcome[index]!;
      if (first === index) return { receipt: receiptOf(rows.get(event.body.eventId)!), repeated: false };
      return { receipt: receiptOf(typeof first === 'number' ? rows.get(event.body.eventId)! : first), repeated: true };
    });
  }

  /**
   * The outbox message kinds this side takes from a Manage instance that reports to this Trace
   * (it asked): forwarded events, the machines it approved and the envelopes of batch-signed
   * events. Without `traceEnabled`: `traceFuncitionalityNotEnabled`.
   */
  handlers(): Record<'event' | 'device' | 'eventBatch', MessageHandler> {
    const accepts = (peer: ManageInstanceRow) => peer.manage_type === 'trace' && peer.initiator === 0;
    return {
      event: {
        accepts,
        apply: (trx, peer, body, { sourceIp, now }) => this.receiveForwarded(trx, peer, body, sourceIp, now),
      },
      device: {
        accepts,
        apply: async (trx, peer, body, { now }) => {
          await takingPeerEvents(trx);
          await receiveReportedDevice(trx, this.database.dialect, peer, body, now);
        },
      },
      eventBatch: {
        accepts,
        apply: async (trx, _peer, body, { now }) => {
          await takingPeerEvents(trx);
          await receiveForwardedBatch(trx, this.database.dialect, body, now);
        },
      },
    };
  }

  /**
   * An event a registered Manage instance forwarded (its outbox): stored like one reported here —
   * once by eventId, chained per machine (a gap or fork recorded as a finding), audited — with
   * source `peer` and the machine's own proof as that instance received it. The instance's own
   * events (proof `server`, its inspections) are chained per instance ({@link reportedServerChainId}).
   * Without `traceEnabled`: `traceFuncitionalityNotEnabled`.
   */
  async receiveForwarded(trx: Kysely<DB>, peer: ManageInstanceRow, input: unknown, sourceIp: string, now: string): Promise<void> {
    await takingPeerEvents(trx);
    const event = parseApl(ZForwardedEvent, input, 'apl.body');
    const own = event.proof.format === 'server';
    if (own !== (event.deviceId === SERVER_CHAIN_ID)) {
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'apl.body.proof',
        description: "Only the reporting instance's own chain carries its own proof",
      });
    }
    const hash = eventHash(canonicalEvent(event.body, event.deviceId));
    if (hash !== event.eventHash) {
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'apl.body.eventHash',
        description: 'The hash does not match the event',
      });
    }
    const repository = this.repository(trx);
    const existing = await repository.find(event.body.eventId);
    if (existing) {
      if (existing.event_hash !== hash) throw eventIdTaken('apl.body.body.eventId');
      return;
    }
    const chainId = own ? reportedServerChainId(peer.id) : event.deviceId;
    await repository.ensureChain(chainId, now);
    const chain = (await repository.lockChain(chainId))!;
    await appendToChainNow(trx, this.database.dialect, chain, [
      {
        deviceId: chainId,
        body: event.body,
        hash,
        orderId: event.orderId,
        dsiId: event.dsiId,
        source: 'peer',
        proof: JSON.stringify(event.proof),
        actor: `manage:${peer.manage_site_name}`,
        sourceIp,
        now,
        audit: {
          type: 'forwardedEventReceived',
          details: { eventId: event.body.eventId, kind: event.body.kind, manageId: peer.id, occurredAt: event.body.occurredAt },
        },
      },
    ]);
  }
}
