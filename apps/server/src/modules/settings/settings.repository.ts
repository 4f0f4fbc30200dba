import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { isoNow } from '../../lib/time.js';

/** Server-wide values kept in the database, so every instance on it shares them. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  /** The stored values of these keys (absent keys are left out). */
  async getMany(keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute();
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  async set(key: string, value: string): Promise<void> {
    const updated = await this.db
      .updateTable('settings')
      .set({ value, updated_at: isoNow() })
      .where('key', '=', key)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    await this.insertIfAbsent(key, value);
  }

  /** Stores the value unless one exists; answers the stored value (race-safe across instances). */
  async insertIfAbsent(key: string, value: string): Promise<string> {
    try {
      await this.db.insertInto('settings').values({ key, value, updated_at: isoNow() }).execute();
      return value;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const stored = await this.get(key);
      if (stored === undefined) throw error;
      return stored;
    }
  }
}
