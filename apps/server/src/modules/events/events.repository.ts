import { type Kysely, sql } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { listKey, paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import type { WriteSet } from '../../db/write-set.js';
import type { DB } from '../../db/schema.js';
import type {
  PeerDevicesTable,
  TraceChainRow,
  TraceEventBatchesTable,
  TraceEventRow,
  TraceEventsTable,
} from '../../db/schema-trace.js';
import type { SignedEventEnvelope } from './trace-event-format.js';

const EVENT_ROWS_PER_INSERT = 500;

/** The row of a batch-signed envelope (stored once, its events name it). */
export function batchRow(batchId: string, envelope: SignedEventEnvelope, now: string): TraceEventBatchesTable {
  return { batch_id: batchId, device_id: envelope.deviceId, envelope: JSON.stringify(envelope), received_at: now };
}
const EVENT_COLUMNS: readonly (keyof TraceEventsTable)[] = [
  'event_id',
  'device_id',
  'sequence',
  'kind',
  'occurred_at',
  'authorization_id',
  'order_id',
  'dsi_id',
  'job_id',
  'quantity',
  'data',
  'previous_hash',
  'event_hash',
  'chain_finding',
  'source',
  'proof',
  'received_at',
];

/** An authorization as an event sees it: whose it is, and the order and design it belongs to. */
export interface EventAuthorization {
  id: string;
  device_id: string | null;
  state: string;
  order_id: string;
  dsi_id: string;
}

/** Trace events and the head of each machine's hash chain. */
export class EventsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Pick<Dialect, 'forUpdate' | 'kind'>,
  ) {}

  /** Creates the machine's empty chain unless it exists (a racing creator's row is as good). */
  async ensureChain(deviceId: string, now: string): Promise<void> {
    const found = await this.db
      .selectFrom('trace_chains')
      .select('device_id')
      .where('device_id', '=', deviceId)
      .executeTakeFirst();
    if (found) return;
    try {
      await this.db
        .insertInto('trace_chains')
        .values({ device_id: deviceId, length: 0, head_hash: null, updated_at: now })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }

  /** The machine's chain, locked until the transaction ends: one machine's events are chained one at a time. */
  lockChain(deviceId: string): Promise<TraceChainRow | undefined> {
    return this.dialect
      .forUpdate(this.db.selectFrom('trace_chains').selectAll().where('device_id', '=', deviceId))
      .executeTakeFirst();
  }

  /** The chain's new length and head, with the writes of its events. */
  advanceChain(writes: WriteSet, deviceId: string, length: number, headHash: string, now: string): void {
    writes.update('trace_chains', 'device_id', ['length', 'head_hash', 'updated_at'], {
      device_id: deviceId,
      length,
      head_hash: headHash,
      updated_at: now,
    });
  }

  /** Events by id (those that exist). */
  async findMany(eventIds: string[]): Promise<Map<string, TraceEventRow>> {
    if (eventIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('trace_events').selectAll().where('event_id', 'in', eventIds).execute();
    return new Map(rows.map((row) => [row.event_id, row]));
  }

  find(eventId: string): Promise<TraceEventRow | undefined> {
    return this.db.selectFrom('trace_events').selectAll().where('event_id', '=', eventId).executeTakeFirst();
  }

  async hasHash(deviceId: string, hash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('trace_events')
      .select('event_id')
      .where('device_id', '=', deviceId)
      .where('event_hash', '=', hash)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Rows in this order, added to the writes in inserts of at most {@link EVENT_ROWS_PER_INSERT} (within every database's limit of bound values). */
  insertMany(writes: WriteSet, rows: TraceEventsTable[]): void {
    for (let start = 0; start < rows.length; start += EVENT_ROWS_PER_INSERT) {
      writes.insert('trace_events', EVENT_COLUMNS, rows.slice(start, start + EVENT_ROWS_PER_INSERT));
    }
  }

  /**
   * Batch-signed envelopes; `unlessStored`: those not stored yet (an id is the envelope's, so one
   * stored is the same — an uploaded history; two transactions storing one new batch at once: the
   * second fails on the primary key). A machine's live batch needs no check: its nonce is spent in
   * the same transaction, so its envelope is new — one stored is a replay (`duplicate`: its refusal,
   * for the case the database reports the envelope's key before the nonce's).
   */
  async insertBatches(
    writes: WriteSet,
    rows: TraceEventBatchesTable[],
    { unlessStored, duplicate }: { unlessStored: boolean; duplicate?: () => Error },
  ): Promise<void> {
    let fresh = rows;
    if (unlessStored && rows.length > 0) {
      const known = await this.db
        .selectFrom('trace_event_batches')
        .select('batch_id')
        .where(
          'batch_id',
          'in',
          rows.map((row) => row.batch_id),
        )
        .execute();
      const stored = new Set(known.map((row) => row.batch_id));
      fresh = rows.filter((row) => !stored.has(row.batch_id));
    }
    writes.insert(
      'trace_event_batches',
      ['batch_id', 'device_id', 'envelope', 'received_at'],
      fresh,
      duplicate ? { duplicate } : {},
    );
  }

  /** Batch-signed envelopes by id (those that exist). */
  async batches(batchIds: string[]): Promise<Map<string, SignedEventEnvelope>> {
    if (batchIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('trace_event_batches')
      .select(['batch_id', 'envelope'])
      .where('batch_id', 'in', batchIds)
      .execute();
    return new Map(rows.map((row) => [row.batch_id, JSON.parse(row.envelope) as SignedEventEnvelope]));
  }

  /** The signing certificate of a machine a reporting instance approved (`peer_devices`). */
  async peerDeviceCertificate(deviceId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('peer_devices')
      .select('signing_certificate')
      .where('device_id', '=', deviceId)
      .executeTakeFirst();
    return row?.signing_certificate;
  }

  async insertPeerDevice(row: PeerDevicesTable): Promise<void> {
    await this.db.insertInto('peer_devices').values(row).execute();
  }

  authorization(id: string): Promise<EventAuthorization | undefined> {
    return this.db
      .selectFrom('authorizations')
      .select(['id', 'device_id', 'state', 'order_id', 'dsi_id'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The machine's events in chain order, `limit` of them after `afterSequence`. */
  history(deviceId: string, afterSequence: number, limit: number): Promise<TraceEventRow[]> {
    return this.db
      .selectFrom('trace_events')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('sequence', '>', afterSequence)
      .orderBy('sequence')
      .limit(limit)
      .execute();
  }

  /** Events newest first (by arrival), optionally of one design. */
  list(page: TPageQuery, filter: { dsiId?: string | undefined }): Promise<TPage<TraceEventRow>> {
    let base = this.db.selectFrom('trace_events');
    if (filter.dsiId) base = base.where('trace_events.dsi_id', '=', filter.dsiId);
    return paginateAnchored(
      this.db,
      {
        key: JSON.stringify(['trace_events', filter.dsiId ?? null]),
        tables: ['trace_events'],
        readByKey: true,
        counted: [filter.dsiId ? listKey('d', [filter.dsiId]) : WHOLE_TABLE],
      },
      base,
      { value: sql.ref('trace_events.received_at'), id: sql.ref('trace_events.event_id'), direction: 'desc' },
      page,
      (from) => from.selectAll(),
      (rows) => rows,
    );
  }

  /** The eventIds of these jobs (authorization and jobId) by job: the machine's in its chain's order, then this server's. */
  async eventsOfJobs(jobs: { authorizationId: string; jobId: string }[]): Promise<Map<string, string[]>> {
    const byJob = new Map<string, string[]>();
    if (jobs.length === 0) return byJob;
    const rows = await this.db
      .selectFrom('trace_events')
      .select(['event_id', 'authorization_id', 'job_id'])
      .where('authorization_id', 'in', [...new Set(jobs.map((job) => job.authorizationId))])
      .where('job_id', 'in', [...new Set(jobs.map((job) => job.jobId))])
      // one chain's sequence says nothing of another's: the machine's events, then this server's (its inspections)
      .orderBy(sql`case when source = 'server' then 1 else 0 end`)
      .orderBy('sequence')
      .execute();
    for (const row of rows) {
      const key = `${row.authorization_id}|${row.job_id}`;
      byJob.set(key, [...(byJob.get(key) ?? []), row.event_id]);
    }
    return byJob;
  }

  /**
   * A machine's events of one licence that belong to one job or to none (the licence or design
   * received by the machine), oldest first, at most `limit`.
   */
  eventsOfLicenceJob(deviceId: string, authorizationId: string, jobId: string, limit: number): Promise<TraceEventRow[]> {
    return this.db
      .selectFrom('trace_events')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('authorization_id', '=', authorizationId)
      .where((eb) => eb.or([eb('job_id', '=', jobId), eb('job_id', 'is', null)]))
      .orderBy('sequence')
      .limit(limit)
      .execute();
  }

  /**
   * The server's own events about one part (its inspections' quality check events, docs/quality.md),
   * in chain order: the server chain holds every part's, so they are found by the part's inspections.
   */
  serverEventsOfPart(serverChainId: string, partId: string): Promise<TraceEventRow[]> {
    return this.db
      .selectFrom('trace_events')
      .selectAll()
      .where('device_id', '=', serverChainId)
      .where('event_id', 'in', (eb) => eb.selectFrom('quality_inspections').select('event_id').where('part_id', '=', partId))
      .orderBy('sequence')
      .execute();
  }
}
