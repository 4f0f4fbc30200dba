/** How long a failed job waits before its next attempt. */
export interface RetryPolicy {
  /** Delay after the first failed attempt, ms; each further failure doubles it. */
  baseMs: number;
  /** Longest delay, ms. */
  maxMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { baseMs: 5_000, maxMs: 3_600_000 };

/**
 * Exponential back-off with jitter: after failed attempt `attempt` (1, 2, …) the delay is
 * `baseMs · 2^(attempt-1)`, capped at `maxMs`, of which the upper half is random ("equal
 * jitter"), so jobs that failed together do not all come back at the same moment.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 40);
  const ceiling = Math.min(policy.baseMs * 2 ** exponent, policy.maxMs);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * The start of the period of a recurring job that `now` falls in. Periods count from the Unix
 * epoch, so every process computes the same slots (and dedupe keys) without talking to the others.
 */
export function slotStart(now: Date, everySeconds: number): Date {
  const periodMs = everySeconds * 1000;
  return new Date(Math.floor(now.getTime() / periodMs) * periodMs);
}

/** The dedupe key of one period of a recurring job: at most one job per kind and period. */
export function slotDedupeKey(kind: string, slot: Date): string {
  return `every:${kind}:${slot.toISOString()}`;
}

/** An error as `last_error` keeps it: its message, bounded. */
export function errorText(error: unknown, maxLength = 2000): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
