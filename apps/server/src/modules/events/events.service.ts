import {
  authorizationEventKinds,
  isJobEventKind,
  TRACE_HISTORY_FORMAT,
  ZTraceEventBody,
  ZTraceEventFile,
  ZForwardedEvent,
  type TChainFinding,
  type TPage,
  type TPageQuery,
  type TStpEnvelope,
  type TTraceEventBody,
  type TTraceEventEntry,
  type TTraceEventKind,
  type TTraceEventProof,
  type TTraceEventReceipt,
  type TTraceEventUploadResult,
  type TTraceHistory,
} from '@manifold/contract';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import type { Database } from '../../db/database.js';
import { type Dialect, isUniqueViolation } from '../../db/dialect.js';
import type { DeviceRow } from '../../db/schema-packages.js';
import type { DB } from '../../db/schema.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';
import type { TraceChainRow, TraceEventRow } from '../../db/schema-trace.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { identifierErrors } from '../../lib/identifier-errors.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import { formatPath } from '../packages/device-parameters.js';
import type { StpService } from '../licensing/stp.service.js';
import type { MessageHandler } from '../outbox/peer-messages.service.js';
import { parseApl } from '../registrations/apl-checks.js';
import { traceEnabled } from '../settings/trace-enabled.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { BuildsRepository } from './builds.repository.js';
import { type EventAuthorization, EventsRepository } from './events.repository.js';
import { traceEventEntry } from './entries.js';
import { epcisDocument } from './epcis.js';
import { eventSearchEpcis } from './epcis-export.js';
import { applyJobEvent } from './job-effects.js';
import {
  canonicalEvent,
  deviceOfEventXml,
  eventHash,
  STP_EVENT_PATH,
  TraceEventFormatError,
  verifyProof,
} from './trace-event-format.js';

/** An event whose signature and content were checked, ready to be chained and stored. */
interface CheckedEvent {
  device: DeviceRow;
  body: TTraceEventBody;
  authorization: EventAuthorization | null;
  proof: TTraceEventProof;
  source: 'stp' | 'xml' | 'upload';
  sourceIp: string;
}

/** The machine's chain as the next event finds it. */
function findingOf(previousHash: string | null, headHash: string | null, knownHash: boolean): TChainFinding | null {
  if (previousHash === headHash) return null;
  return previousHash !== null && !knownHash ? 'gap' : 'fork';
}

function receiptOf(row: Pick<TraceEventRow, 'event_id' | 'event_hash' | 'chain_finding'>): TTraceEventReceipt {
  return { eventId: row.event_id, eventHash: row.event_hash, chainFinding: row.chain_finding };
}

/** This server's own chain of the events it originates (no machine has this id). */
export const SERVER_CHAIN_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Chains, stores and audits one event in the transaction that holds its chain's lock: the finding
 * against the chain's head, the row, the new head, the audit record of its kind (and of a break).
 */
async function appendToChain(
  trx: Kysely<DB>,
  dialect: Dialect,
  chain: TraceChainRow,
  event: {
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
  },
): Promise<TraceEventRow> {
  const repository = new EventsRepository(trx, dialect);
  const previous = event.body.previousHash;
  const known = previous !== null && previous !== chain.head_hash && (await repository.hasHash(event.deviceId, previous));
  const finding = findingOf(previous, chain.head_hash, known);
  const now = event.now ?? isoNow();
  const row: TraceEventRow = {
    event_id: event.body.eventId,
    device_id: event.deviceId,
    sequence: chain.length + 1,
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
  await repository.insert(row);
  await repository.advanceChain(event.deviceId, row.sequence, event.hash, now);
  const audit = new AuditRepository(trx, dialect);
  await audit.record(
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
    await audit.record({
      type: 'traceChainBroken',
      actor: event.actor,
      subject: event.deviceId,
      sourceIp: event.sourceIp,
      details: { eventId: row.event_id, finding, previousHash: previous, expectedPreviousHash: chain.head_hash },
    });
  }
  return row;
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

/**
 * Events machines report (docs/traceability.md): signed by the machine's registered signing key
 * (an STP envelope, an enveloped XML-DSig, or either in an uploaded file), stored once by
 * `eventId`, chained per machine. Each event is stored, chained, audited and has its effects on
 * builds, parts and the order (job-effects.ts) in one transaction; the answer is sent after its
 * commit.
 */
export class EventsService {
  constructor(
    private readonly database: Database,
    private readonly stp: StpService,
    /** Queues a newly stored event for the Trace instances (the event queue), in its transaction. */
    private readonly forward?: (trx: Kysely<DB>, row: TraceEventRow) => Promise<void>,
  ) {}

  private repository(db = this.database.db): EventsRepository {
    return new EventsRepository(db, this.database.dialect);
  }

  /** `POST /stp/event`: the envelope is checked like every machine request (signature, time, nonce). */
  async receiveStp(envelope: TStpEnvelope, sourceIp: string): Promise<TTraceEventReceipt> {
    const body = parseBody(envelope.body, 'body');
    const { device } = await this.stp.verify(envelope, STP_EVENT_PATH, sourceIp);
    const proof: TTraceEventProof = { format: 'stp', envelope };
    return this.store(await this.checked(device, body, proof, 'stp', sourceIp));
  }

  /** `POST /apl/event`: a `TraceEvent` document signed by the machine it names. */
  async receiveXml(xml: string, sourceIp: string): Promise<TTraceEventReceipt> {
    const device = await this.machineOf(this.readXmlDevice(xml), { approved: true });
    const body = await this.verified({ format: 'xml', xml }, device, 'body');
    return this.store(await this.checked(device, body, { format: 'xml', xml }, 'xml', sourceIp));
  }

  /**
   * `POST /ui/event/upload`: a file of signed events (the `events` of an export). Every event is
   * checked before any is stored; then each is stored in order like a live one (repeats counted,
   * not stored again).
   */
  async upload(file: Buffer, caller: Pick<Caller, 'username' | 'sourceIp'>): Promise<TTraceEventUploadResult> {
    let json: unknown;
    try {
      json = JSON.parse(file.toString('utf8'));
    } catch {
      throw new AppError('traceEventMalformed', { field: 'file', description: 'The file is not JSON' });
    }
    const parsed = ZTraceEventFile.safeParse(json);
    if (!parsed.success) {
      const field = formatPath(parsed.error.issues[0]!.path, 'file');
      throw new AppError('traceEventMalformed', { field, description: `${field}: ${parsed.error.issues[0]!.message}` });
    }
    const checked: CheckedEvent[] = [];
    const hashes = new Map<string, string>();
    for (const [index, { proof }] of parsed.data.events.entries()) {
      const at = `file.events[${index}]`;
      const deviceId = proof.format === 'stp' ? proof.envelope.deviceId : this.readXmlDevice(proof.xml, at);
      const device = await this.machineOf(deviceId, { approved: false }, at);
      const body = await this.verified(proof, device, at);
      checked.push(await this.checked(device, body, proof, 'upload', caller.sourceIp, at));
      // an eventId used for another event, stored or earlier in the file, refuses the file before anything is stored
      const hash = eventHash(canonicalEvent(body, device.id));
      const known = hashes.get(body.eventId) ?? (await this.repository().find(body.eventId))?.event_hash;
      if (known !== undefined && known !== hash) throw eventIdTaken(`${at}.eventId`);
      hashes.set(body.eventId, hash);
    }
    const result: TTraceEventUploadResult = { received: checked.length, stored: 0, repeated: 0, findings: 0 };
    for (const event of checked) {
      const { receipt, repeated } = await this.storeOnce(event);
      if (repeated) result.repeated += 1;
      else result.stored += 1;
      if (!repeated && receipt.chainFinding) result.findings += 1;
    }
    await new AuditRepository(this.database.db, this.database.dialect).recordBy(caller, 'traceEventsUploaded', 'events', {
      ...result,
    });
    return result;
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

  /** `GET /ui/event/export`: the machine's whole history with its proofs, in chain order. */
  async history(deviceId: string): Promise<TTraceHistory> {
    const device = await new DevicesRepository(this.database.db).find(deviceId);
    if (!device) throw new AppError('deviceIdNotValid', { field: 'deviceId' });
    const events: TTraceHistory['events'] = [];
    const repository = this.repository();
    for (let after = 0; ;) {
      const rows = await repository.history(deviceId, after, 1000);
      for (const row of rows) {
        events.push({
          sequence: row.sequence,
          eventId: row.event_id,
          eventHash: row.event_hash,
          previousHash: row.previous_hash,
          chainFinding: row.chain_finding,
          receivedAt: row.received_at,
          proof: JSON.parse(row.proof) as TTraceEventProof,
        });
      }
      if (rows.length < 1000) break;
      after = rows[rows.length - 1]!.sequence;
    }
    return {
      format: TRACE_HISTORY_FORMAT,
      deviceId,
      signingCertificate: device.signing_certificate,
      exportedAt: isoNow(),
      events,
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
  private async verified(proof: TTraceEventProof, device: DeviceRow, at: string): Promise<TTraceEventBody> {
    let signed: { deviceId: string; body: Record<string, unknown> };
    try {
      signed = await verifyProof(proof, device.signing_certificate);
    } catch (error) {
      const failure = this.formatFailure(error, at);
      if (failure !== error || !isCryptoError(error)) throw failure;
      throw new AppError('traceEventSignatureInvalid', { field: at, description: `${error.message}` });
    }
    if (signed.deviceId !== device.id) throw new AppError('traceEventSignatureInvalid', { field: `${at}.deviceId` });
    return parseBody(signed.body, at);
  }

  /** The authorization rule: a licence's event names one of this machine's authorizations that was sent to it. */
  private async checked(
    device: DeviceRow,
    body: TTraceEventBody,
    proof: TTraceEventProof,
    source: CheckedEvent['source'],
    sourceIp: string,
    at = 'body',
  ): Promise<CheckedEvent> {
    let authorization: EventAuthorization | null = null;
    if (body.authorizationId !== null) {
      authorization = (await this.repository().authorization(body.authorizationId)) ?? null;
      if (!authorization || authorization.device_id !== device.id || authorization.state === 'authorized') {
        throw new AppError('authorizationNotAvailable', { field: `${at}.authorizationId` });
      }
    } else if (authorizationEventKinds.includes(body.kind)) {
      throw new AppError('authorizationNotAvailable', {
        field: `${at}.authorizationId`,
        description: `A ${body.kind} event names the authorization it belongs to`,
      });
    }
    if (isJobEventKind(body.kind) && body.jobId === null) {
      throw new AppError('malformedRequest', { field: `${at}.jobId`, description: `A ${body.kind} event names its jobId` });
    }
    return { device, body, authorization, proof, source, sourceIp };
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
    const row = await appendToChain(trx, this.database.dialect, chain, {
      deviceId: SERVER_CHAIN_ID,
      body,
      hash,
      orderId: event.authorization.order_id,
      dsiId: event.authorization.dsi_id,
      source: 'server',
      proof: JSON.stringify({ format: 'server', ...event.proof }),
      actor: caller.username,
      sourceIp: caller.sourceIp,
    });
    if (this.forward) await this.forward(trx, row);
    return receiptOf(row);
  }

  private async store(event: CheckedEvent): Promise<TTraceEventReceipt> {
    return (await this.storeOnce(event)).receipt;
  }

  /**
   * Stores the event unless its eventId is known: a repeat of the same event answers the stored
   * receipt; the same eventId with other content is `traceEventIdNotValid`. Two first arrivals of
   * one eventId from different machines race on the primary key: the loser looks again.
   */
  private async storeOnce(event: CheckedEvent): Promise<{ receipt: TTraceEventReceipt; repeated: boolean }> {
    const canonical = canonicalEvent(event.body, event.device.id);
    const hash = eventHash(canonical);
    await this.repository().ensureChain(event.device.id, isoNow());
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.database.transaction(async (trx) => {
          const repository = this.repository(trx);
          const chain = (await repository.lockChain(event.device.id))!;
          const existing = await repository.find(event.body.eventId);
          if (existing) {
            if (existing.event_hash !== hash) throw eventIdTaken('body.eventId');
            return { receipt: receiptOf(existing), repeated: true };
          }
          const row = await appendToChain(trx, this.database.dialect, chain, {
            deviceId: event.device.id,
            body: event.body,
            hash,
            orderId: event.authorization?.order_id ?? null,
            dsiId: event.authorization?.dsi_id ?? null,
            source: event.source,
            proof: JSON.stringify(event.proof),
            actor: `device:${event.device.id}`,
            sourceIp: event.sourceIp,
          });
          if (event.authorization && isJobEventKind(event.body.kind)) {
            const job = {
              eventId: row.event_id,
              deviceId: event.device.id,
              body: event.body,
              authorization: event.authorization,
            };
            await applyJobEvent(new BuildsRepository(trx, this.database.dialect), job, row.received_at);
          }
          if (this.forward) await this.forward(trx, row);
          return { receipt: receiptOf(row), repeated: false };
        });
      } catch (error) {
        if (attempt === 0 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  /** The outbox message kind this side takes: events forwarded by a Manage instance that reports to this Trace (it asked). */
  handlers(): { event: MessageHandler } {
    return {
      event: {
        accepts: (peer) => peer.manage_type === 'trace' && peer.initiator === 0,
        apply: (trx, peer, body, { sourceIp, now }) => this.receiveForwarded(trx, peer, body, sourceIp, now),
      },
    };
  }

  /**
   * An event a registered Manage instance forwarded (its outbox): stored like one reported here —
   * once by eventId, chained per machine (a gap or fork recorded as a finding), audited — with
   * source `peer` and the machine's own proof as that instance received it. Without `traceEnabled`:
   * `traceFuncitionalityNotEnabled`.
   */
  async receiveForwarded(trx: Kysely<DB>, peer: ManageInstanceRow, input: unknown, sourceIp: string, now: string): Promise<void> {
    if (!(await traceEnabled(new SettingsRepository(trx)))) {
      throw new AppError('traceFuncitionalityNotEnabled', { description: 'This instance does not take events from peers' });
    }
    const event = parseApl(ZForwardedEvent, input, 'apl.body');
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
    await repository.ensureChain(event.deviceId, now);
    const chain = (await repository.lockChain(event.deviceId))!;
    await appendToChain(trx, this.database.dialect, chain, {
      deviceId: event.deviceId,
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
    });
  }
}
