import {
  DASHBOARD_DAYS,
  DASHBOARD_PEERS,
  DASHBOARD_RECENT_EVENTS,
  type TDashboard,
  firstRunStepsOf,
  type TRole,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { setupStepChecks } from '../admin/setup-state.js';
import { DashboardRepository } from './dashboard.repository.js';

const dayMs = 24 * 60 * 60 * 1000;

/** The UTC days of the window ending on `now`'s day, oldest first. */
export function dashboardDays(now: Date, count: number = DASHBOARD_DAYS): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, index) => new Date(today - (count - 1 - index) * dayMs).toISOString().slice(0, 10));
}

/** passed / (passed + failed), four decimals; null when nothing was inspected. */
export function passRate(passed: number, failed: number): number | null {
  const inspected = passed + failed;
  return inspected === 0 ? null : Math.round((passed / inspected) * 10_000) / 10_000;
}

/** The figures every user gets, queried at once (the peers and first run come on top for ADMIN). */
export function dashboardFigureQueries(repository: DashboardRepository, now: string, from: string) {
  return Promise.all([
    repository.liveOrders(now),
    repository.authorizationsWaiting(),
    repository.machinesByRegistration(),
    repository.machinesPrinting(),
    repository.machinesOffline(),
    repository.jobsInProgress(),
    repository.recentEvents(DASHBOARD_RECENT_EVENTS),
    repository.partsMadePerDay(from),
    repository.inspectionsPerDay(from),
  ]);
}

/**
 * The home dashboard (docs/dashboard.md, a Manifold extension): every figure counted by the
 * database in one call; administrators also get the peers with their outbox and the first-run
 * checklist, which reads the setup wizard's own checks.
 */
export class DashboardService {
  constructor(private readonly database: Database) {}

  private repository(): DashboardRepository {
    return new DashboardRepository(this.database.db);
  }

  async dashboard(role: TRole, now: Date = new Date()): Promise<TDashboard> {
    const repository = this.repository();
    const nowIso = now.toISOString();
    const days = dashboardDays(now);
    const from = `${days[0]!}T00:00:00.000Z`;
    const admin = role === 'ADMIN';
    const [[orders, waiting, registrations, printing, offline, jobs, events, made, inspections], peers, firstRun] =
      await Promise.all([
        dashboardFigureQueries(repository, nowIso, from),
        admin ? this.peers(repository) : Promise.resolve(null),
        admin ? this.firstRun(repository) : Promise.resolve(null),
      ]);
    const approved = registrations.get('Approved') ?? 0;
    const inspected = new Map<string, { passed: number; failed: number }>();
    for (const row of inspections) {
      const entry = inspected.get(row.day) ?? { passed: 0, failed: 0 };
      if (row.result === 'passed') entry.passed += row.n;
      else entry.failed += row.n;
      inspected.set(row.day, entry);
    }
    const perDay = days.map((day) => ({
      day,
      made: made.get(day) ?? 0,
      passed: inspected.get(day)?.passed ?? 0,
      failed: inspected.get(day)?.failed ?? 0,
    }));
    const sum = (key: 'made' | 'passed' | 'failed') => perDay.reduce((total, day) => total + day[key], 0);
    return {
      generatedAt: nowIso,
      orders,
      authorizations: { waitingToSend: waiting },
      machines: {
        printing,
        offline,
        idle: Math.max(0, approved - printing - offline),
        awaitingApproval: registrations.get('Pending') ?? 0,
      },
      jobs: { inProgress: jobs },
      recentEvents: events.map((event) => ({
        eventId: event.event_id,
        kind: event.kind,
        deviceId: event.device_id,
        deviceName: event.device_name ?? null,
        occurredAt: event.occurred_at,
        receivedAt: event.received_at,
      })),
      parts: {
        days: perDay,
        made: sum('made'),
        passed: sum('passed'),
        failed: sum('failed'),
        passRate: passRate(sum('passed'), sum('failed')),
      },
      peers,
      firstRun,
    };
  }

  private async peers(repository: DashboardRepository): Promise<NonNullable<TDashboard['peers']>> {
    const [total, peers] = await Promise.all([repository.peerCount(), repository.peers(DASHBOARD_PEERS)]);
    const outbox = await repository.outboxByPeer(peers.map((peer) => peer.id));
    return {
      total,
      list: peers.map((peer) => {
        const rows = outbox.filter((row) => row.targetId === peer.id);
        const count = (state: string) => rows.find((row) => row.state === state)?.n ?? 0;
        return {
          id: peer.id,
          name: peer.manage_site_name,
          type: peer.manage_type,
          registrationState: peer.registration_state,
          pending: count('pending'),
          failed: count('failed'),
          delivered: count('delivered'),
          lastDeliveredAt: rows.find((row) => row.state === 'delivered')?.lastDeliveredAt ?? null,
        };
      }),
    };
  }

  /** The first-run steps from the setup wizard's checks (keys, certificates, storage) and the instance's peers and machines. */
  private async firstRun(repository: DashboardRepository): Promise<NonNullable<TDashboard['firstRun']>> {
    const check = (step: (typeof setupStepChecks)[number]['step']) =>
      setupStepChecks.find((candidate) => candidate.step === step)!.isComplete(this.database);
    const [keys, signCert, cryptCert, storage, peers, machines] = await Promise.all([
      check('crypto'),
      check('signCert'),
      check('cryptCert'),
      check('storage'),
      repository.approvedPeerExists(),
      repository.machineExists(),
    ]);
    const steps = firstRunStepsOf({ keys, certificates: signCert && cryptCert, storage, peers, machines });
    return { complete: steps.every((step) => step.done), steps };
  }
}
