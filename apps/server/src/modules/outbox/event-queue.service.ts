import type { Kysely } from 'kysely';
import type {
  TEventConfiguration,
  TEventConfigurationUpdate,
  TForwardedEvent,
  TForwardedEventBatch,
  TReportedDevice,
  TPage,
  TPageQuery,
  TQueuedEvent,
  TTraceEventBody,
  TForwardedEventProof,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { TraceEventRow } from '../../db/schema-trace.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import { EventsRepository } from '../events/events.repository.js';
import { canonicalEvent, SERVER_CHAIN_ID, traceEventXml } from '../events/trace-event-format.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { OutboxRepository, type NewMessage } from './outbox.repository.js';
import { PeerRegistrationsRepository } from '../registrations/peer-registrations.repository.js';

/** Settings keys of the event configuration (`admin/event`). */
const ENABLED_KEY = 'eventForwarding.enabled';
const TIMEOUT_KEY = 'eventForwarding.timeoutSeconds';
/** Defaults: forwarding on, each event tried for a week. */
export const DEFAULT_EVENT_CONFIGURATION: TEventConfiguration = { enabled: true, timeout: 7 * 86_400 };

const notQueued = () =>
  new AppError('traceEventIdNotValid', { field: 'eventId', description: 'The event is not waiting in the queue' });

/** What the machine reported of a stored event. */
function bodyOf(row: TraceEventRow): TTraceEventBody {
  return {
    eventId: row.event_id,
    kind: row.kind as TTraceEventBody['kind'],
    occurredAt: row.occurred_at,
    authorizationId: row.authorization_id,
    jobId: row.job_id,
    quantity: row.quantity === null ? null : Number(row.quantity),
    previousHash: row.previous_hash,
    data: JSON.parse(row.data) as Record<string, string>,
  };
}

/**
 * The event queue (docs/traceability.md#the-event-queue): every event stored here waits in the
 * outbox, one message per approved Trace instance this instance reports to, until each has
 * acknowledged it (`queue/list`, `queue/send`, `queue/delete`, `queue/download`), as the event
 * configuration (`admin/event`) says.
 */
export class EventQueueService {
  constructor(
    private readonly database: Database,
    private readonly settings: SettingsRepository,
  ) {}

  /** `target device` pairs seen reported in a committed row (the rows are never removed). */
  private readonly reported = new Set<string>();
  /** Chains that are no registered machine here (the server's own): never reported. */
  private readonly notReportable = new Set<string>();

  /** The configuration, read through `settings` (the caller's transaction when it has one). */
  async configuration(settings: Pick<SettingsRepository, 'get'> = this.settings): Promise<TEventConfiguration> {
    const enabled = await settings.get(ENABLED_KEY);
    const timeout = await settings.get(TIMEOUT_KEY);
    return {
      enabled: enabled === undefined ? DEFAULT_EVENT_CONFIGURATION.enabled : enabled === 'true',
      timeout: timeout === undefined ? DEFAULT_EVENT_CONFIGURATION.timeout : Number(timeout),
    };
  }

  async configure(input: TEventConfigurationUpdate, caller: Caller): Promise<TEventConfiguration> {
    if (input.enabled !== null && input.enabled !== undefined) await this.settings.set(ENABLED_KEY, String(input.enabled));
    if (input.timeout !== null && input.timeout !== undefined) await this.settings.set(TIMEOUT_KEY, String(input.timeout));
    const configuration = await this.configuration();
    await new AuditRepository(this.database.db, this.database.dialect).recordBy(
      caller,
      'eventConfigurationChanged',
      'admin/event',
      {
        ...configuration,
      },
    );
    return configuration;
  }

  /**
   * Queues newly stored events for every approved Trace instance this instance reports to (in
   * the transaction that stores them), when forwarding is enabled; tried for the configured time.
   * The targets and the configuration are read once for all of them. A machine's messages to a
   * Trace instance go one at a time, in the order queued (ordering key: the machine), so its
   * events arrive there in chain order. Before the events go, in the
   * same transaction: each of their machines not yet reported to a target ({@link devicesToReport}),
   * and the envelope of each batch-signed event's batch (`eventBatch`, once per batch and target),
   * so the Trace holds what its history export needs to check offline.
   */
  async forward(trx: Kysely<DB>, rows: TraceEventRow[]): Promise<void> {
    // one read of the (small) registrations table on the ingestion path when nothing is forwarded
    const targets = await new PeerRegistrationsRepository(trx).traceTargets();
    if (targets.length === 0) return;
    const configuration = await this.configuration(new SettingsRepository(trx));
    if (!configuration.enabled) return;
    const now = isoNow();
    const messages: NewMessage[] = await this.devicesToReport(trx, targets, [...new Set(rows.map((row) => row.device_id))], now);
    const batches = new Set<string>();
    const bodies = rows.map((row): TForwardedEvent => {
      const proof = JSON.parse(row.proof) as TForwardedEventProof;
      if (proof.format === 'stp-batch') batches.add(proof.batch);
      return {
        deviceId: row.device_id,
        body: bodyOf(row),
        eventHash: row.event_hash,
        orderId: row.order_id,
        dsiId: row.dsi_id,
        proof,
        receivedAt: row.received_at,
      };
    });
    if (batches.size > 0) {
      const envelopes = await new EventsRepository(trx, this.database.dialect).batches([...batches]);
      for (const [batchId, envelope] of envelopes) {
        const body: TForwardedEventBatch = { batchId, envelope };
        for (const target of targets)
          messages.push({
            kind: 'eventBatch',
            targetKind: 'trace',
            targetId: target,
            subjectId: batchId,
            body,
            orderingKey: envelope.deviceId,
          });
      }
    }
    for (const body of bodies) {
      for (const target of targets) {
        messages.push({
          kind: 'event',
          targetKind: 'trace',
          targetId: target,
          subjectId: body.body.eventId,
          body,
          orderingKey: body.deviceId,
        });
      }
    }
    await this.enqueue(trx, messages, configuration.timeout, now);
  }

  /**
   * Spec §4, "Device approval is reported to Trace": a machine approved here is reported to every
   * approved Trace instance this instance reports to (one `device` message each, in the approval's
   * transaction), whether or not event forwarding is on. A Trace registered later learns it with
   * the machine's first event forwarded to it.
   */
  async reportApproval(trx: Kysely<DB>, deviceId: string): Promise<void> {
    const targets = await new PeerRegistrationsRepository(trx).traceTargets();
    if (targets.length === 0) return;
    const { timeout } = await this.configuration(new SettingsRepository(trx));
    const now = isoNow();
    await this.enqueue(trx, await this.devicesToReport(trx, targets, [deviceId], now), timeout, now);
  }

  /** Queues `messages` due now, each tried for `timeout` seconds (the event configuration's). */
  private async enqueue(trx: Kysely<DB>, messages: NewMessage[], timeout: number, now: string): Promise<void> {
    const expiresAt = isoNow(new Date(Date.parse(now) + timeout * 1000));
    await new OutboxRepository(trx, this.database.dialect).enqueueMany(
      messages.map((message) => ({ ...message, expiresAt })),
      now,
    );
  }

  /**
   * The `device` messages of the machines among `deviceIds` not yet reported to each of `targets`,
   * recorded as reported (`trace_reported_devices`). What a committed row or the devices table
   * shows once is remembered, so the ingestion path reads nothing for machines already reported;
   * two instances racing report a machine twice, which the Trace takes once.
   */
  private async devicesToReport(trx: Kysely<DB>, targets: string[], deviceIds: string[], now: string): Promise<NewMessage[]> {
    const open = (target: string, deviceId: string) =>
      !this.notReportable.has(deviceId) && !this.reported.has(`${target} ${deviceId}`);
    const wanted = deviceIds.filter((deviceId) => targets.some((target) => open(target, deviceId)));
    if (wanted.length === 0) return [];
    const outbox = new OutboxRepository(trx, this.database.dialect);
    for (const row of await outbox.reportedDevices(targets, wanted)) this.reported.add(`${row.target_id} ${row.device_id}`);
    const devices = await new DevicesRepository(trx).reportable(wanted);
    // a chain that is no machine of this instance (the server's own events) is never reported
    for (const deviceId of wanted) if (!devices.some((device) => device.id === deviceId)) this.notReportable.add(deviceId);
    const messages: NewMessage[] = [];
    const rows: { target_id: string; device_id: string; reported_at: string }[] = [];
    for (const device of devices) {
      const body: TReportedDevice = {
        deviceId: device.id,
        name: device.name,
        serialNumber: device.serial_number,
        model: device.model,
        manufacturer: device.manufacturer,
        signingCertificate: device.signing_certificate,
      };
      for (const target of targets) {
        if (!open(target, device.id)) continue;
        rows.push({ target_id: target, device_id: device.id, reported_at: now });
        messages.push({
          kind: 'device',
          targetKind: 'trace',
          targetId: target,
          subjectId: device.id,
          body,
          orderingKey: device.id,
        });
      }
    }
    await outbox.recordReported(rows);
    return messages;
  }

  async list(page: TPageQuery): Promise<TPage<TQueuedEvent>> {
    const queued = await new OutboxRepository(this.database.db, this.database.dialect).queuedEvents(page);
    const events = await new EventsRepository(this.database.db, this.database.dialect).findMany(
      queued.data.map((q) => q.eventId),
    );
    return {
      ...queued,
      data: queued.data.map((entry) => {
        const event = events.get(entry.eventId);
        return {
          id: entry.eventId,
          eventId: entry.eventId,
          kind: event?.kind ?? '',
          deviceId: event?.device_id ?? '',
          occurredAt: event?.occurred_at ?? '',
          state: entry.pending > 0 ? 'pending' : 'failed',
          targets: entry.targets,
          delivered: entry.delivered,
          attempts: entry.attempts,
          nextAttemptAt: entry.nextAttemptAt,
          lastError: entry.lastError,
          dateCreated: entry.createdAt,
        };
      }),
    };
  }

  /**
   * `queue/send`: every delivery of the event not yet acknowledged is tried now (a given-up one
   * again, for the configured time), and so are its machine's report and its batch's envelope.
   */
  async send(eventId: string, caller: Caller): Promise<void> {
    const { timeout } = await this.configuration();
    await this.database.transaction(async (trx) => {
      const now = new Date();
      const outbox = new OutboxRepository(trx, this.database.dialect);
      const [at, until] = [isoNow(now), isoNow(new Date(now.getTime() + timeout * 1000))];
      const rows = await outbox.hurry(eventId, 'event', at, until);
      if (rows.length === 0) throw notQueued();
      // what the Trace needs with the event, given up with it: its machine, its batch's envelope
      const event = await new EventsRepository(trx, this.database.dialect).find(eventId);
      if (event) {
        await outbox.hurry(event.device_id, 'device', at, until);
        const proof = JSON.parse(event.proof) as TForwardedEventProof;
        if (proof.format === 'stp-batch') await outbox.hurry(proof.batch, 'eventBatch', at, until);
      }
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'queuedEventSent', eventId, {
        messages: rows.length,
      });
    });
  }

  /** `queue/delete`: the event leaves the queue; its deliveries not yet acknowledged are withdrawn. */
  async delete(eventId: string, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const withdrawn = await new OutboxRepository(trx, this.database.dialect).cancelSubject(eventId, 'event', isoNow());
      if (withdrawn === 0) throw notQueued();
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'queuedEventDeleted', eventId, {
        messages: withdrawn,
      });
    });
  }

  /**
   * `queue/download`: the event as XML — the machine's signed document when it reported one
   * (`POST /apl/event`), else its canonical form as the unsigned `TraceEvent` document.
   */
  async download(eventId: string): Promise<string> {
    const row = await new EventsRepository(this.database.db, this.database.dialect).find(eventId);
    if (!row) throw new AppError('traceEventIdNotValid', { field: 'traceEventId', description: 'No such event' });
    const proof = JSON.parse(row.proof) as TForwardedEventProof;
    if (proof.format === 'xml') return proof.xml;
    // an instance's own event (here or reported by one) was hashed on its own chain's id
    return traceEventXml(canonicalEvent(bodyOf(row), proof.format === 'server' ? SERVER_CHAIN_ID : row.device_id));
  }
}
