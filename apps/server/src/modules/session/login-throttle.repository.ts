import type { Kysely } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import { type Dialect, isUniqueViolation } from '../../db/dialect.js';
import { pageOffset, toPage } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';

/** One throttled key: its recent failures, since when they count, and when it may try again. */
export interface ThrottleRow {
  key: string;
  failures: number;
  windowStart: string;
  /** `locked_until` column: no password is checked for this key before this time. */
  notBefore: string | null;
}

const toRow = (row: { key: string; failures: number; window_start: string; locked_until: string | null }): ThrottleRow => ({
  key: row.key,
  failures: Number(row.failures),
  windowStart: row.window_start,
  notBefore: row.locked_until,
});

export class LoginThrottleRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Creates the rows that do not exist yet, outside the locking transaction: creating a row under
   * a lock invites gap-lock deadlocks on MariaDB and aborts a PostgreSQL transaction on a race.
   */
  async ensure(keys: string[], nowIso: string): Promise<void> {
    const existing = await this.db.selectFrom('login_failures').select('key').where('key', 'in', keys).execute();
    const known = new Set(existing.map((row) => row.key));
    for (const key of keys.filter((k) => !known.has(k))) {
      try {
        await this.db
          .insertInto('login_failures')
          .values({ key, failures: 0, window_start: nowIso, locked_until: null })
          .execute();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
  }

  /** The row of `key`, locked for the rest of the transaction (created first if missing). */
  async lock(key: string, nowIso: string): Promise<ThrottleRow> {
    const select = () =>
      this.dialect.forUpdate(this.db.selectFrom('login_failures').selectAll().where('key', '=', key)).executeTakeFirst();
    const existing = await select();
    if (existing) return toRow(existing);
    try {
      await this.db.insertInto('login_failures').values({ key, failures: 0, window_start: nowIso, locked_until: null }).execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const created = await select();
    if (!created) throw new Error(`login throttle row ${key} vanished`);
    return toRow(created);
  }

  async save(row: ThrottleRow): Promise<void> {
    await this.db
      .updateTable('login_failures')
      .set({ failures: row.failures, window_start: row.windowStart, locked_until: row.notBefore })
      .where('key', '=', row.key)
      .execute();
  }

  async remove(key: string): Promise<boolean> {
    const result = await this.db.deleteFrom('login_failures').where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Keys with failures, busiest first. */
  async list(page: TPageQuery): Promise<TPage<ThrottleRow>> {
    const base = this.db.selectFrom('login_failures').where('failures', '>', 0);
    const [total, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      base.selectAll().orderBy('failures', 'desc').orderBy('key').limit(page.numberOfItems).offset(pageOffset(page)).execute(),
    ]);
    return toPage(page, total.n, rows.map(toRow));
  }
}
