import type { LoginThrottleConfig } from '../../config.js';

/**
 * Failed-login throttling (docs/api.md#failed-logins). Three counters, each with a growing delay:
 *
 * - `pair:<username>|<address>` — one source guessing one account: free for `slowAfter`
 *   failures, then each further failure doubles the wait (from `slowdownMs`, capped at
 *   `lockSeconds`).
 * - `ip:<address>` — one source spraying many accounts: the same curve after `5 × maxFailures`.
 * - `user:<username>` — many sources guessing one account: the same curve after `maxFailures`;
 *   each source adds at most `slowAfter` failures to it, so a flood from one address never
 *   holds back the owner logging in from elsewhere.
 *
 * An attempt is counted before its password is checked, in one transaction that locks the
 * counters, and refused unchecked while any of them says "not before": 100 parallel guesses
 * check at most `slowAfter + 1` passwords. A successful login clears its source's and its
 * account's counters. Failures older than `windowSeconds` are forgotten.
 */
export class LoginThrottlePolicy {
  constructor(private readonly config: LoginThrottleConfig) {}

  keys(usernameKey: string, sourceIp: string): { pair: string; ip: string; user: string } {
    const user = usernameKey.slice(0, 150);
    const ip = sourceIp.slice(0, 45);
    return { pair: `pair:${user}|${ip}`, ip: `ip:${ip}`, user: `user:${user}` };
  }

  /** Failures a key may have before waits begin. */
  freeFailures(kind: 'pair' | 'ip' | 'user'): number {
    if (kind === 'pair') return this.config.slowAfter;
    return kind === 'ip' ? this.config.maxFailures * 5 : this.config.maxFailures;
  }

  /** How long a key with `failures` recent failures must wait before its next check, ms. */
  waitMs(kind: 'pair' | 'ip' | 'user', failures: number): number {
    const over = failures - this.freeFailures(kind);
    if (over <= 0) return 0;
    return Math.min(this.config.slowdownMs * 2 ** Math.min(over - 1, 30), this.config.lockSeconds * 1000);
  }

  /** Whether failures counted since `windowStart` are too old to count at `now`. */
  expired(windowStart: string, now: Date): boolean {
    return new Date(windowStart).getTime() < now.getTime() - this.config.windowSeconds * 1000;
  }

  /** Whether a source that has failed `pairFailures` times on an account still adds to the account's count. */
  countsForAccount(pairFailures: number): boolean {
    return pairFailures <= this.config.slowAfter;
  }
}
