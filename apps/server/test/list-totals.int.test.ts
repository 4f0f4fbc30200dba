import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseKind } from '../src/config.js';
import { compactListChanges, listKey, readListState } from '../src/db/anchored-paging.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { countedKeys, type ListTable } from '../src/db/migrations/033-list-totals.js';
import { migrationProvider } from '../src/db/migrations/index.js';
import type { DB } from '../src/db/schema.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { seededOrderRow } from './helpers/seeded-orders.js';
import { seededAuditRow, seededAuthorizationRow } from './helpers/seeded-rows.js';
import { describeEachDatabase } from './helpers/test-app.js';

// The sizes the triggers keep (migration 033) must be exactly what counting the rows gives, for
// every counted key of every table, whatever the writes (multi-row inserts, updates that move a
// row from one key to another, deletes, from another connection as another server process would)
// and before and after the change rows are folded.

type Counted = 'orders' | 'authorizations' | 'audit_events';

/** Every key's size by counting the table's rows. */
async function counted(db: Kysely<DB>, table: Counted): Promise<Record<string, number>> {
  const keys = countedKeys[table] as Record<string, readonly string[]>;
  const columns = [...new Set(Object.values(keys).flat())];
  const rows = await db
    .selectFrom(table)
    .select(columns.map((column) => sql.ref(column).as(column)))
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

/** Every key's size as kept: folded totals plus the change rows not folded yet (keys of size 0 left out). */
async function kept(db: Kysely<DB>, table: ListTable): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const row of await db.selectFrom('list_totals').select(['list_key', 'total']).where('name', '=', table).execute())
    sizes[row.list_key] = (sizes[row.list_key] ?? 0) + Number(row.total);
  for (const row of await db.selectFrom('list_changes').select(['list_key', 'delta']).where('name', '=', table).execute())
    sizes[row.list_key] = (sizes[row.list_key] ?? 0) + Number(row.delta);
  return Object.fromEntries(Object.entries(sizes).filter(([key, size]) => size !== 0 || key === ''));
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

  it('keeps every key exact through inserts, key moves, deletes and folding', async () => {
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
    await db.updateTable('authorizations').set({ state: 'sent' }).where('order_id', '=', orders[3]!.id).execute();
    await expectExact(db);

    // deletes, one by one and many at once
    await db.deleteFrom('authorizations').where('id', '=', authorizations[40]!.id).execute();
    await db.deleteFrom('authorizations').where('order_id', '=', orders[4]!.id).execute();
    await db.deleteFrom('orders').where('id', '=', orders[4]!.id).execute();
    await expectExact(db);

    const generation = (await readListState(db, ['authorizations'])).generation;
    expect(await compactListChanges(db)).toBeGreaterThan(0);
    const left = await db
      .selectFrom('list_changes')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
    expect((await readListState(db, ['authorizations'])).generation).toBe(generation);
    await expectExact(db);
    // a key emptied by the writes above is gone from the totals after folding
    expect(
      await db
        .selectFrom('list_totals')
        .select('list_key')
        .where('name', '=', 'authorizations')
        .where('list_key', '=', listKey('ao', [0, orders[2]!.id]))
        .execute(),
    ).toEqual([]);

    // writes after folding add to the folded totals
    await seed(db, 1000, 5);
    await db.deleteFrom('authorizations').where('order_id', '=', orders[5]!.id).execute();
    await expectExact(db);
    expect((await readListState(db, ['authorizations'])).generation).not.toBe(generation);
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
    const weights = await database.db
      .selectFrom('list_changes')
      .select((eb) => eb.fn.sum<number | string>('weight').as('w'))
      .where('name', '=', 'authorizations')
      .executeTakeFirstOrThrow();

    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();
    await expectExact(database.db);
    expect((await readListState(database.db, ['authorizations'])).generation).toBe(String(Number(weights.w)));
    // and keeps them from then on
    await seed(database.db, 500, 2);
    await expectExact(database.db);
  });
});
