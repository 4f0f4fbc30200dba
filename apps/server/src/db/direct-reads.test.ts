import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { directRead, enableDirectReads } from './direct-reads.js';
import type { DB } from './schema.js';

describe('direct reads', () => {
  const kysely = () => new Kysely<DB>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });

  it('answers undefined on a database without them, and times what a pooled read answers or throws', async () => {
    const plain = kysely();
    expect(directRead(plain, 'select 1', [])).toBeUndefined();

    const db = kysely();
    const timed: boolean[] = [];
    enableDirectReads(
      db,
      async (sql) => {
        if (sql === 'bad') throw new Error('refused');
        return [{ sql }];
      },
      (milliseconds, failed) => timed.push(failed && milliseconds >= 0),
    );
    expect(await directRead(db, 'good', [])).toEqual([{ sql: 'good' }]);
    await expect(directRead(db, 'bad', [])).rejects.toThrow('refused');
    expect(timed).toEqual([false, true]);
    await Promise.all([plain.destroy(), db.destroy()]);
  });
});
