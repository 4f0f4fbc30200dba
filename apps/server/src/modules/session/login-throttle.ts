import type { Kysely } from 'kysely';
import type { LoginThrottleConfig } from '../../config.js';
import { type Dialect, isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { LoginFailuresRepository } from './login-failures.repository.js';

export interface ThrottleKey {
  key: string;
  maxFailures: number;
}

export interface ThrottleState {
  /** Set while logins for this username or address are refused. */
  lockedUntil: Date | undefined;
  /** Recent failures of the busiest key: decides the slowdown. */
  failures: number;
}

/**
 * Counts failed logins per username and per address in the database, so every instance sees
 * the same counts. The username need not exist: answers never tell whether it does.
 */
export class LoginThrottle {
  constructor(
    private readonly config: LoginThrottleConfig,
    private readonly dialect: Dialect,
  ) {}

  keysFor(usernameKey: string, sourceIp: string): ThrottleKey[] {
    return [
      { key: `user:${usernameKey}`.slice(0, 200), maxFailures: this.config.maxFailures },
      { key: `ip:${sourceIp}`.slice(0, 200), maxFailures: this.config.maxFailures * 5 },
    ];
  }

  private failures(db: Kysely<DB>): LoginFailuresRepository {
    return new LoginFailuresRepository(db, this.dialect);
  }

  async state(db: Kysely<DB>, keys: ThrottleKey[], now: Date): Promise<ThrottleState> {
    const rows = await this.failures(db).ofKeys(keys.map((k) => k.key));
    const windowStart = new Date(now.getTime() - this.config.windowSeconds * 1000).toISOString();
    let lockedUntil: Date | undefined;
    let failures = 0;
    for (const row of rows) {
      if (row.locked_until && row.locked_until > now.toISOString()) {
        const until = new Date(row.locked_until);
        if (!lockedUntil || until > lockedUntil) lockedUntil = until;
      }
      if (row.window_start >= windowStart && row.key.startsWith('user:')) failures = Math.max(failures, row.failures);
    }
    return { lockedUntil, failures };
  }

  /** How long to hold back the answer after this many recent failures. */
  delayMs(failures: number): number {
    if (failures < this.config.slowAfter) return 0;
    return Math.min((failures - this.config.slowAfter + 1) * this.config.slowdownMs, 5000);
  }

  async recordFailure(trx: Kysely<DB>, keys: ThrottleKey[], now: Date): Promise<void> {
    for (const key of keys) {
      try {
        await this.bump(trx, key, now);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await this.bump(trx, key, now);
      }
    }
  }

  async clear(trx: Kysely<DB>, key: ThrottleKey): Promise<void> {
    await this.failures(trx).delete(key.key);
  }

  private async bump(trx: Kysely<DB>, { key, maxFailures }: ThrottleKey, now: Date): Promise<void> {
    const nowIso = now.toISOString();
    const windowStart = new Date(now.getTime() - this.config.windowSeconds * 1000).toISOString();
    const failures = this.failures(trx);
    const row = await failures.lock(key);
    if (!row) {
      await failures.insert({
        key,
        failures: 1,
        window_start: nowIso,
        locked_until: maxFailures <= 1 ? this.lockEnd(now) : null,
      });
      return;
    }
    const stale = row.window_start < windowStart || (row.locked_until !== null && row.locked_until <= nowIso);
    const count = stale ? 1 : row.failures + 1;
    await failures.update(key, {
      failures: count,
      window_start: stale ? nowIso : row.window_start,
      locked_until: count >= maxFailures ? this.lockEnd(now) : stale ? null : row.locked_until,
    });
  }

  private lockEnd(now: Date): string {
    return new Date(now.getTime() + this.config.lockSeconds * 1000).toISOString();
  }
}
