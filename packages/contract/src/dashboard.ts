import { z } from 'zod';

/**
 * The home dashboard (docs/dashboard.md) — a Manifold extension, not in the spec: one call,
 * `GET /ui/dashboard`, answers every figure of the console's home screen, each counted by the
 * database. Administrators also get the peers with their outbox delivery state and, until the
 * instance is set up, the first-run checklist.
 */

/** How many days the parts figure covers (today included, UTC days). */
export const DASHBOARD_DAYS = 14;
/** How many of the newest events the dashboard lists. */
export const DASHBOARD_RECENT_EVENTS = 8;
/** How many peers the dashboard lists (the outbox screen has them all). */
export const DASHBOARD_PEERS = 20;

/** The first-run steps, in the order an empty instance takes them. */
export const firstRunSteps = ['keys', 'certificates', 'storage', 'peers', 'machines'] as const;
export const ZFirstRunStep = z.enum(firstRunSteps);
export type TFirstRunStep = z.infer<typeof ZFirstRunStep>;

/** The first-run steps in their order, each done as `done` says. */
export function firstRunStepsOf(done: Record<TFirstRunStep, boolean>): { step: TFirstRunStep; done: boolean }[] {
  return firstRunSteps.map((step) => ({ step, done: done[step] }));
}

export const ZDashboard = z
  .object({
    generatedAt: z.string(),
    /** Orders not archived, not revoked and not expired; `quantityLeft` is what they can still authorize. */
    orders: z.object({ live: z.number().int(), quantityLeft: z.number().int() }),
    /** Authorizations made and not yet sent (state `authorized`, not archived). */
    authorizations: z.object({ waitingToSend: z.number().int() }),
    /**
     * Machines not disabled: `awaitingApproval` registered and pending; of the approved,
     * `printing` with a job started or paused, `offline` whose last report was `machineOffline`,
     * `idle` the rest.
     */
    machines: z.object({
      printing: z.number().int(),
      idle: z.number().int(),
      offline: z.number().int(),
      awaitingApproval: z.number().int(),
    }),
    /** Builds whose job started and has not ended, failed or been cancelled (paused included). */
    jobs: z.object({ inProgress: z.number().int() }),
    recentEvents: z.array(
      z.object({
        eventId: z.string(),
        kind: z.string(),
        deviceId: z.string(),
        /** Null for the server's own chain and for machines whose registration was deleted. */
        deviceName: z.string().nullable(),
        occurredAt: z.string(),
        receivedAt: z.string(),
      }),
    ),
    /** Parts made per UTC day (by the time the machine reported them), and inspections passed/failed per day. */
    parts: z.object({
      days: z.array(z.object({ day: z.string(), made: z.number().int(), passed: z.number().int(), failed: z.number().int() })),
      made: z.number().int(),
      passed: z.number().int(),
      failed: z.number().int(),
      /** passed / (passed + failed) over the days, four decimals; null when nothing was inspected. */
      passRate: z.number().nullable(),
    }),
    /** ADMIN only (null for a USER): registered peers and what the outbox holds for each. */
    peers: z
      .object({
        total: z.number().int(),
        list: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            type: z.string(),
            registrationState: z.string(),
            pending: z.number().int(),
            failed: z.number().int(),
            delivered: z.number().int(),
            lastDeliveredAt: z.string().nullable(),
          }),
        ),
      })
      .nullable(),
    /** ADMIN only (null for a USER): what an empty instance still needs, from the setup state. */
    firstRun: z
      .object({
        complete: z.boolean(),
        steps: z.array(z.object({ step: ZFirstRunStep, done: z.boolean() })),
      })
      .nullable(),
  })
  .meta({ id: 'Dashboard' });
export type TDashboard = z.infer<typeof ZDashboard>;
