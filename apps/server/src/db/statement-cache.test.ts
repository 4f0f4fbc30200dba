import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { precompiled } from './precompiled.js';
import type { DB } from './schema.js';
import { directRead, enableDirectReads } from './direct-reads.js';
import { cachingStatements, sqliteDialect } from './statement-cache.js';

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

describe('reads at once', () => {
  const byName = precompiled((db: Kysely<DB>, args: { name: string }) =>
    db
      .selectFrom('t' as never)
      .select(['id', 'name'] as never[])
      .where('name' as never, '=', args.name as never),
  );

  function setUp() {
    const timed: boolean[] = [];
    const { dialect, readAtOnce } = sqliteDialect(connection());
    const db = new Kysely<DB>({ dialect });
    enableDirectReads(db, readAtOnce, (milliseconds, failed) => timed.push(failed || milliseconds < 0));
    return { db, timed };
  }

  it('answers a read on a free connection without queueing, timed for the query figures', async () => {
    const { db, timed } = setUp();
    expect(directRead(db, 'select name from t where id = ?', [2])).toEqual([{ name: 'b' }]);
    expect(await byName(db, { name: 'c' })).toEqual([{ id: 3, name: 'c' }]);
    expect(timed).toEqual([false, false]);
    expect(() => directRead(db, 'delete from t', [])).toThrow('reads only');
    expect(timed).toEqual([false, false, true]);
    await db.transaction().execute(async (trx) => {
      expect(directRead(trx, 'select name from t where id = ?', [2])).toBeUndefined();
    });
    await db.destroy();
  });

  it('answers the rows better-sqlite3 would (aliases, nulls, every row), at once on a free connection', async () => {
    const { db } = setUp();
    const text = "select id as n, name, null as absent, id * 2 as twice, 'x' as name from t where id > ? order by id";
    const rows = directRead(db, text, [0]);
    expect(rows).toEqual([
      { n: 1, name: 'x', absent: null, twice: 2 },
      { n: 2, name: 'x', absent: null, twice: 4 },
      { n: 3, name: 'x', absent: null, twice: 6 },
    ]);
    expect(rows).toEqual(connection().prepare(text).all(0));
    expect(directRead(db, 'select name from t where id = ?', [99])).toEqual([]);
    expect(byName(db, { name: 'c' })).toEqual([{ id: 3, name: 'c' }]); // not a promise: no turn to wait
    await db.destroy();
  });

  it('queues behind another transaction and never sees its uncommitted rows', async () => {
    const { db } = setUp();
    let release!: () => void;
    let inserted!: () => void;
    const wasInserted = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await sql`insert into t (name) values ('d')`.execute(trx);
      inserted();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await wasInserted;
    expect(directRead(db, 'select name from t where name = ?', ['d'])).toBeUndefined();
    let answered: unknown;
    const queued = byName(db, { name: 'd' });
    expect(queued).toBeInstanceOf(Promise);
    const read = Promise.resolve(queued).then((rows) => (answered = rows));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBeUndefined();
    release();
    await transaction;
    expect(await read).toEqual([{ id: 4, name: 'd' }]);
    await db.destroy();
  });

  it('queues while a streamed query holds the connection', async () => {
    const { db } = setUp();
    const stream = db
      .selectFrom('t' as never)
      .select(['name'] as never[])
      .stream();
    expect((await stream.next()).value).toEqual({ name: 'a' });
    let answered: unknown;
    const read = Promise.resolve(byName(db, { name: 'a' })).then((rows) => (answered = rows));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBeUndefined();
    await stream.return?.(undefined);
    expect(await read).toEqual([{ id: 1, name: 'a' }]);
    await db.destroy();
  });
});

describe('transactions', () => {
  it('take the write lock when they start: another process writing makes them wait, not fail at their first write', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-sqlite-'));
    const file = path.join(directory, 'db.sqlite');
    // no busy timeout: both connections are in this thread, where a wait could never end early
    const own = new SQLite(file, { timeout: 0 });
    own.pragma('journal_mode = WAL');
    own.exec('create table t (id integer primary key, name text not null)');
    const other = new SQLite(file, { timeout: 0 });
    const db = new Kysely<DB>({ dialect: sqliteDialect(own).dialect });
    try {
      await db.transaction().execute(async (trx) => {
        // a transaction that has only read holds the lock already: another connection's write waits
        expect(await sql`select count(*) as n from t`.execute(trx)).toMatchObject({ rows: [{ n: 0 }] });
        expect(() => other.exec("insert into t (name) values ('other')")).toThrow('database is locked');
        await sql`insert into t (name) values ('own')`.execute(trx);
      });
      // and a transaction started while another connection holds the lock is refused at its start,
      // after the busy timeout (0 here), before it read anything it could no longer write on
      other.exec('begin immediate');
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
        }),
      ).rejects.toThrow('database is locked');
      other.exec('rollback');
      expect(other.prepare('select name from t').all()).toEqual([{ name: 'own' }]);
    } finally {
      await db.destroy();
      other.close();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
