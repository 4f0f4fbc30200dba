import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseKind } from '../src/config.js';
import { listKey, mergeEndedShards, readListState } from '../src/db/anchored-paging.js';
import { ListShardMerger } from '../src/jobs/list-shards.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { countedKeys, type ListTable } from '../src/db/migrations/033-list-counts.js';
import { migrationProvider } from '../src/db/migrations/index.js';
import type { DB } from '../src/db/schema.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { seededOrderRow } from './helpers/seeded-orders.js';
import { seededAuditRow, seededAuthorizationRow } from './helpers/seeded-rows.js';
import { describeEachDatabase, type TestApp } from './helpers/test-app.js';

// The sizes the triggers keep (migration 033) must be exactly what counting the rows gives, for
// every counted key of every table, whatever the writes (multi-row inserts, updates that move a
// row from one key to another, deletes, from other connections as other server processes would)
// and before and after the shards of ended connections are merged.

type Counted = 'orders' | 'authorizations' | 'audit_events';

/** Every key's size by counting the table's rows. */
async function counted(db: Kysely<DB>, table: Counted): Promise<Record<string, number>> {
  const keys = countedKeys[table] as Record<string, readonly string[]>;
  const columns = [...new Set(Object.values(keys).flat())];
  const rows = await db
    .selectFrom(table)
    .select(columns.length > 0 ? columns.map((column) => sql.ref(column).as(column)) : [sql<number>`1`.as('one')])
    .execute();
  const sizes: Record<string, number> = { '': rows.length };
  for (const row of rows as Record<string, string | number | null>[]) {
    for (const [name, keyColumns] of Object.entries(keys)) {
      const key = listKey(
        name,
        keyColumns.map((column) => row[column]),
      );
      sizes[key] = (sizes[key] ?? 0) + 1;
    }
  }
  return sizes;
}

/** Every key's size as kept: the sum of its shards (keys of size 0 left out). */
async function kept(db: Kysely<DB>, table: ListTable): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const row of await db.selectFrom('list_counts').select(['list_key', 'total']).where('name', '=', table).execute())
    sizes[row.list_key] = (sizes[row.list_key] ?? 0) + Number(row.total);
  return Object.fromEntries(Object.entries(sizes).filter(([key, size]) => size !== 0 || key === ''));
}

/** The shards (writing connections) holding counts, other than shard 0. */
async function shards(db: Kysely<DB>): Promise<Set<number>> {
  const rows = await db.selectFrom('list_counts').select('shard').distinct().where('shard', '<>', 0).execute();
  return new Set(rows.map((row) => Number(row.shard)));
}

/** The ids of the database's live connections (PostgreSQL backends, MariaDB threads). */
async function liveConnections(db: Kysely<DB>, kind: string): Promise<number[]> {
  if (kind === 'sqlite') return [];
  const { rows } = await (
    kind === 'postgres'
      ? sql<{ id: number }>`select pid as id from pg_stat_activity`
      : sql<{ id: number }>`select id from information_schema.processlist`
  ).execute(db);
  return rows.map((row) => Number(row.id));
}

/** Writes through a connection pool of its own and closes it; answers its shards once its connections have ended. */
async function writeAndClose(ctx: () => TestApp, work: (db: Kysely<DB>) => Promise<unknown>): Promise<number[]> {
  const db = ctx().app.services.database.db;
  const before = await shards(db);
  const temporary = createDatabase(ctx().config.database);
  await work(temporary.db);
  const theirs = [...(await shards(db))].filter((shard) => !before.has(shard));
  await temporary.close();
  if (ctx().kind === 'sqlite') return theirs;
  expect(theirs.length).toBeGreaterThan(0);
  const alive = async () => (await liveConnections(db, ctx().kind)).filter((id) => theirs.includes(id));
  for (let i = 0; i < 100 && (await alive()).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await alive()).toEqual([]);
  return theirs;
}

async function expectExact(db: Kysely<DB>): Promise<void> {
  for (const table of ['orders', 'authorizations', 'audit_events'] as const) {
    expect(await kept(db, table), table).toEqual(await counted(db, table));
  }
}

/** Orders, their authorizations and audit records in multi-row inserts; answers the orders. */
async function seed(db: Kysely<DB>, from: number, count: number) {
  const dsiIds = [randomUUID(), randomUUID()];
  const base = Date.parse('2026-01-01T00:00:00Z');
  const orders = Array.from({ length: count }, (_, i) => seededOrderRow(from + i, dsiIds, base, { companies: 3, users: 4 }));
  await db.insertInto('orders').values(orders).execute();
  const authorizations = orders.flatMap((order, i) =>
    Array.from({ length: 6 }, (_, k) => seededAuthorizationRow(order, from + i * 6 + k, base)),
  );
  for (let start = 0; start < authorizations.length; start += 100)
    await db
      .insertInto('authorizations')
      .values(authorizations.slice(start, start + 100))
      .execute();
  await db
    .insertInto('audit_events')
    .values(Array.from({ length: count * 2 }, (_, i) => seededAuditRow(from + i, base)))
    .execute();
  return { orders, authorizations };
}

describeEachDatabase('list sizes kept by the triggers', (ctx) => {
  let other: Database;

  beforeAll(() => {
    other = createDatabase(ctx().config.database);
  });

  afterAll(async () => {
    await other.close();
  });

  it('keeps every key exact through inserts, key moves, deletes and merges', async () => {
    const db = other.db;
    const { orders, authorizations } = await seed(db, 0, 40);
    await expectExact(db);

    // updates that move rows between keys: archive, another order, another company
    await db
      .updateTable('authorizations')
      .set({ archived: 1 })
      .where(
        'id',
        'in',
        authorizations.slice(0, 30).map((a) => a.id),
      )
      .execute();
    await db.updateTable('authorizations').set({ order_id: orders[1]!.id }).where('order_id', '=', orders[2]!.id).execute();
    await db.updateTable('orders').set({ company_name: 'Company 9' }).where('company_name', '=', 'Company 1').execute();
    // an update of no listed column moves nothing
    const generation = (await readListState(db, ['authorizations'])).generation;
    await db.updateTable('authorizations').set({ state: 'sent' }).where('order_id', '=', orders[3]!.id).execute();
    expect((await readListState(db, ['authorizations'])).generation).toBe(generation);
    await expectExact(db);

    // deletes, one by one and many at once
    await db.deleteFrom('authorizations').where('id', '=', authorizations[40]!.id).execute();
    await db.deleteFrom('authorizations').where('order_id', '=', orders[4]!.id).execute();
    await db.deleteFrom('orders').where('id', '=', orders[4]!.id).execute();
    await expectExact(db);
    expect((await readListState(db, ['authorizations'])).generation).not.toBe(generation);

    // what another connection pool wrote, merged into shard 0 once its connections have ended
    const theirs = await writeAndClose(ctx, (temporary) => seed(temporary, 500, 4));
    await expectExact(db);
    const before = (await readListState(db, ['authorizations'])).generation;
    const moved = await mergeEndedShards(db, ctx().kind as DatabaseKind);
    if (ctx().kind === 'sqlite') expect([moved, await shards(db)]).toEqual([0, new Set()]);
    else {
      expect(moved).toBeGreaterThan(0);
      expect([...(await shards(db))].filter((shard) => theirs.includes(shard))).toEqual([]);
    }
    await expectExact(db);
    expect((await readListState(db, ['authorizations'])).generation).toBe(before);
    expect(await mergeEndedShards(db, ctx().kind as DatabaseKind)).toBe(0);

    // writes after merging add to the merged counts
    await seed(db, 1000, 5);
    await db.deleteFrom('authorizations').where('order_id', '=', orders[5]!.id).execute();
    await expectExact(db);
  });

  it("merges an ended connection's shards in the background, and drops keys it left empty", async () => {
    const errors: string[] = [];
    const merger = new ListShardMerger(
      ctx().app.services.database,
      { info: () => undefined, warn: () => undefined, error: (line) => errors.push(line) },
      20,
    );
    merger.start();
    try {
      const base = Date.parse('2026-05-01T00:00:00Z');
      const order = seededOrderRow(4000, [randomUUID()], base, { companies: 1, users: 1 });
      const theirs = await writeAndClose(ctx, async (temporary) => {
        await temporary.insertInto('orders').values(order).execute();
        await temporary
          .insertInto('authorizations')
          .values(seededAuthorizationRow(order, 1, base))
          .execute();
        await temporary.deleteFrom('authorizations').where('order_id', '=', order.id).execute();
      });
      const unmerged = async () => [...(await shards(other.db))].filter((shard) => theirs.includes(shard));
      for (let i = 0; i < 100 && (await unmerged()).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await unmerged()).toEqual([]);
      await expectExact(other.db);
      if (ctx().kind !== 'sqlite') {
        // the order's keys, filled and emptied by the ended connection, are gone
        const left = await other.db
          .selectFrom('list_counts')
          .select('list_key')
          .where('name', '=', 'authorizations')
          .where('list_key', 'in', [listKey('ao', [0, order.id]), listKey('ao', [1, order.id])])
          .execute();
        expect(left).toEqual([]);
      }
    } finally {
      await merger.stop();
    }
    expect(errors).toEqual([]);
  });

  it("answers a counted list's size with its generation, in one read", async () => {
    const db = other.db;
    const { orders } = await seed(db, 2000, 3);
    const order = orders[0]!;
    const keys = [listKey('ao', [0, order.id]), listKey('ao', [1, order.id])];
    const state = await readListState(db, ['authorizations'], keys);
    expect(state.total).toBe(6);
    const unarchived = await readListState(db, ['authorizations'], [listKey('ao', [0, order.id])]);
    const rows = await db
      .selectFrom('authorizations')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('order_id', '=', order.id)
      .where('archived', '=', 0)
      .executeTakeFirstOrThrow();
    expect(unarchived.total).toBe(Number(rows.n));
    expect((await readListState(db, ['authorizations'])).total).toBeUndefined();
  });
});

// A database that held rows before migration 033 starts with their sizes.
describe.each(inject('databases') as DatabaseKind[])('list sizes of rows written before migration 033 [%s]', (kind) => {
  let database: Database;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-list-totals-'));
      database = createDatabase({ kind, file: path.join(dir, 'test.db') });
      cleanup = () => fs.rm(dir, { recursive: true, force: true });
    } else {
      const scratch = await createScratchDatabase(kind as 'postgres' | 'mysql');
      database = createDatabase({ kind: kind as 'postgres' | 'mysql', url: scratch.url });
      cleanup = scratch.drop;
    }
  });

  afterAll(async () => {
    await database.close();
    await cleanup();
  });

  it('counts them when it runs, and carries the generation on', async () => {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    const before = await migrator.migrateTo('032-order-authorizations-index');
    expect(before.error).toBeUndefined();
    await seed(database.db, 0, 12);
    await database.db.deleteFrom('audit_events').where('subject', '=', 'subject-3').execute();
    const { rows: weights } = await sql<{
      w: number | string;
    }>`select sum(weight) as w from list_changes where name = 'authorizations'`.execute(database.db);

    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();
    await expectExact(database.db);
    expect((await readListState(database.db, ['authorizations'])).generation).toBe(String(Number(weights[0]!.w)));
    // and keeps them from then on
    await seed(database.db, 500, 2);
    await expectExact(database.db);
  });

  it('undone, carries each list’s generation back into change rows that count on', async () => {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    const generations = async (names: string[]) => {
      const out: Record<string, string> = {};
      for (const name of names) out[name] = (await readListState(database.db, [name as ListTable])).generation;
      return out;
    };
    const kept = await generations(['orders', 'authorizations']);
    expect(Number(kept.orders)).toBeGreaterThan(0);
    expect((await migrator.migrateTo('032-order-authorizations-index')).error).toBeUndefined();
    const changes = async () =>
      Object.fromEntries(
        (
          await sql<{ name: string; w: number | string }>`select name, sum(weight) as w from list_changes group by name`.execute(
            database.db,
          )
        ).rows.map((row) => [row.name, String(row.w)]),
      );
    const carried = await changes();
    expect({ orders: carried.orders, authorizations: carried.authorizations }).toEqual({
      orders: kept.orders,
      authorizations: kept.authorizations,
    });
    // 030's triggers count the next write
    await seed(database.db, 600, 1);
    expect(Number((await changes()).orders)).toBe(Number(kept.orders) + 1);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await expectExact(database.db);
  });
});
