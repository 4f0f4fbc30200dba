import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { precompiled } from './precompiled.js';
import type { DB } from './schema.js';
import { cachingStatements } from './statement-cache.js';

function connection() {
  const raw = new SQLite(':memory:');
  raw.exec('create table t (id integer primary key, name text not null)');
  raw.prepare('insert into t (name) values (?), (?), (?)').run('a', 'b', 'c');
  return raw;
}

describe('cachingStatements', () => {
  it('hands out the same prepared statement for the same SQL', () => {
    const cache = cachingStatements(connection());
    expect(cache.prepare('select * from t')).toBe(cache.prepare('select * from t'));
    expect(cache.prepare('select * from t')).not.toBe(cache.prepare('select id from t'));
  });

  it('prepares a fresh statement while the cached one is still iterating', () => {
    const cache = cachingStatements(connection());
    const first = cache.prepare('select name from t order by id');
    const rows = first.iterate([]) as IterableIterator<{ name: string }>;
    expect(rows.next().value).toEqual({ name: 'a' });
    const second = cache.prepare('select name from t order by id');
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    rows.return?.();
    expect(cache.prepare('select name from t order by id')).toBe(first);
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const cache = cachingStatements(connection(), 2);
    const a = cache.prepare('select 1');
    const b = cache.prepare('select 2');
    expect(cache.prepare('select 1')).toBe(a); // 1 is now the most recent
    cache.prepare('select 3'); // drops 2
    expect(cache.prepare('select 1')).toBe(a);
    expect(cache.prepare('select 2')).not.toBe(b);
  });
});

describe('precompiled', () => {
  const byName = precompiled((db: Kysely<DB>, args: { name: string; above: number }) =>
    db
      .selectFrom('t' as never)
      .select(['id', 'name'] as never[])
      .where('name' as never, '=', args.name as never)
      .where('id' as never, '>', args.above as never),
  );

  it('runs with each call’s values, in and out of a transaction', async () => {
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingStatements(connection()) }) });
    expect(await byName(db, { name: 'b', above: 0 })).toEqual([{ id: 2, name: 'b' }]);
    expect(await byName(db, { name: 'b', above: 2 })).toEqual([]);
    await db.transaction().execute(async (trx) => {
      await sql`insert into t (name) values ('b')`.execute(trx);
      expect(await byName(trx, { name: 'b', above: 0 })).toEqual([
        { id: 2, name: 'b' },
        { id: 4, name: 'b' },
      ]);
    });
    expect(await byName(db, { name: 'c', above: 1 })).toEqual([{ id: 3, name: 'c' }]);
    await db.destroy();
  });
});
