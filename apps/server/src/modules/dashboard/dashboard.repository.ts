import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { madePart } from '../events/made-parts.repository.js';

/** A count as the drivers answer it (PostgreSQL and MariaDB: strings or bigints for sums and counts). */
type Count = number | string | bigint | null;
type CountAll = number | string | bigint;

export function toCount(value: Count | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** A job in progress (started or paused): its machine is printing. */
const inProgress = ['started', 'paused'] as const;

/** A build in progress of the machine of the outer query's `devices` row. */
function jobInProgressOf(eb: ExpressionBuilder<DB, 'devices'>) {
  return eb
    .selectFrom('builds')
    .select('builds.id')
    .where('builds.state', 'in', inProgress)
    .whereRef('builds.device_id', '=', 'devices.id');
}

/**
 * The home dashboard's figures (docs/dashboard.md): each one aggregate query over an index
 * (migration 027 and the trace, quality and outbox indexes).
 */
export class DashboardRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Orders not archived, not revoked, not expired at `now`, and what they can still authorize. */
  async liveOrders(now: string): Promise<{ live: number; quantityLeft: number }> {
    const row = await this.db
      .selectFrom('orders')
      .where('archived', '=', 0)
      .where('revoked', '=', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .select([
        (eb) => eb.fn.countAll<CountAll>().as('live'),
        sql<Count>`sum(quantity - allocated - expired_quantity)`.as('quantity_left'),
      ])
      .executeTakeFirst();
    return { live: toCount(row?.live), quantityLeft: toCount(row?.quantity_left) };
  }

  async authorizationsWaiting(): Promise<number> {
    const row = await this.db
      .selectFrom('authorizations')
      .where('state', '=', 'authorized')
      .where('archived', '=', 0)
      .select((eb) => eb.fn.countAll<CountAll>().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  /** Machines not disabled by registration state. */
  async machinesByRegistration(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('devices')
      .where('disabled', '=', 0)
      .select(['registration_state', (eb) => eb.fn.countAll<CountAll>().as('n')])
      .groupBy('registration_state')
      .execute();
    return new Map(rows.map((row) => [row.registration_state, toCount(row.n)]));
  }

  /** Approved machines (not disabled) with a job in progress. */
  async machinesPrinting(): Promise<number> {
    const row = await this.db
      .selectFrom('devices')
      .where('registration_state', '=', 'Approved')
      .where('disabled', '=', 0)
      .where((eb) => eb.exists(jobInProgressOf(eb)))
      .select((eb) => eb.fn.countAll<CountAll>().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  /** Approved machines (not disabled, no job in progress) whose last report on their chain was `machineOffline`. */
  async machinesOffline(): Promise<number> {
    const row = await this.db
      .selectFrom('devices')
      .innerJoin('trace_chains', 'trace_chains.device_id', 'devices.id')
      .innerJoin('trace_events', (join) =>
        join
          .onRef('trace_events.device_id', '=', 'trace_chains.device_id')
          .onRef('trace_events.sequence', '=', 'trace_chains.length'),
      )
      .where('devices.registration_state', '=', 'Approved')
      .where('devices.disabled', '=', 0)
      .where('trace_events.kind', '=', 'machineOffline')
      .where((eb) => eb.not(eb.exists(jobInProgressOf(eb))))
      .select((eb) => eb.fn.countAll<CountAll>().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  async jobsInProgress(): Promise<number> {
    const row = await this.db
      .selectFrom('builds')
      .where('state', 'in', inProgress)
      .select((eb) => eb.fn.countAll<CountAll>().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  /** The newest events as received, with their machine's name. */
  recentEvents(limit: number) {
    return this.db
      .selectFrom('trace_events')
      .leftJoin('devices', 'devices.id', 'trace_events.device_id')
      .select([
        'trace_events.event_id',
        'trace_events.kind',
        'trace_events.device_id',
        'trace_events.occurred_at',
        'trace_events.received_at',
        'devices.name as device_name',
      ])
      .orderBy('trace_events.received_at', 'desc')
      .orderBy('trace_events.sequence', 'desc')
      .orderBy('trace_events.event_id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Parts made per UTC day since `from` (inclusive, an ISO instant): the parts of ended jobs, an
   * inspection that failed one included; the parts of a failed or cancelled job were never made.
   */
  async partsMadePerDay(from: string): Promise<Map<string, number>> {
    const day = sql<string>`substr(created_at, 1, 10)`;
    const rows = await this.db
      .selectFrom('parts')
      .where('created_at', '>=', from)
      .where(madePart)
      .select([day.as('day'), (eb) => eb.fn.countAll<CountAll>().as('n')])
      .groupBy(day)
      .execute();
    return new Map(rows.map((row) => [row.day, toCount(row.n)]));
  }

  /** Parts inspected per UTC day since `from`, by their latest inspection's result. */
  async inspectionsPerDay(from: string): Promise<{ day: string; result: string; n: number }[]> {
    const day = sql<string>`substr(inspected_at, 1, 10)`;
    const rows = await this.db
      .selectFrom('parts')
      .where('inspection_result', 'in', ['passed', 'failed'])
      .where('inspected_at', '>=', from)
      .select([day.as('day'), 'inspection_result', (eb) => eb.fn.countAll<CountAll>().as('n')])
      .groupBy([day, 'inspection_result'])
      .execute();
    return rows.map((row) => ({ day: row.day, result: row.inspection_result ?? '', n: toCount(row.n) }));
  }

  async peerCount(): Promise<number> {
    const row = await this.db
      .selectFrom('manage_instances')
      .select((eb) => eb.fn.countAll<CountAll>().as('n'))
      .executeTakeFirst();
    return toCount(row?.n);
  }

  /** The first `limit` peers by name. */
  peers(limit: number) {
    return this.db
      .selectFrom('manage_instances')
      .select(['id', 'manage_site_name', 'manage_type', 'registration_state'])
      .orderBy('manage_site_name')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** What the outbox holds for each of the peers, by state, with the last delivery. */
  async outboxByPeer(peerIds: readonly string[]) {
    if (peerIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('outbox')
      .where('target_id', 'in', peerIds)
      .select([
        'target_id',
        'state',
        (eb) => eb.fn.countAll<CountAll>().as('n'),
        (eb) => eb.fn.max('delivered_at').as('last_delivered_at'),
      ])
      .groupBy(['target_id', 'state'])
      .execute();
    return rows.map((row) => ({
      targetId: row.target_id,
      state: row.state,
      n: toCount(row.n),
      lastDeliveredAt: row.last_delivered_at ?? null,
    }));
  }

  async approvedPeerExists(): Promise<boolean> {
    const row = await this.db
      .selectFrom('manage_instances')
      .where('registration_state', '=', 'Approved')
      .select('id')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async machineExists(): Promise<boolean> {
    const row = await this.db.selectFrom('devices').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }
}
