import { randomUUID } from 'node:crypto';
import { CompiledQuery, createQueryId, type RootOperationNode, sql } from 'kysely';
import { afterAll, beforeAll, expect, it, type MockInstance, vi } from 'vitest';
import type { TAuthorization, TOrder, TPage } from '@manifold/contract';
import { ANCHOR_EVERY, LAY_AHEAD, readListState } from '../src/db/anchored-paging.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { ForceIndex } from '../src/db/dialect.js';
import { seededOrderRow } from './helpers/seeded-orders.js';
import { seededAuthorizationRow } from './helpers/seeded-rows.js';
import { describeEachDatabase, type TestApp } from './helpers/test-app.js';

/**
 * A connection of its own to the suite's database (as another server process would have), after
 * it inserted `count` orders of `dsiIds` over three companies and four users, 1 in 10 archived.
 */
async function withSeededOrders(app: TestApp, count: number, dsiIds: string[]): Promise<Database> {
  const other = createDatabase(app.config.database);
  const base = Date.parse('2026-01-01T00:00:00Z');
  const rows = Array.from({ length: count }, (_, i) => seededOrderRow(i, dsiIds, base, { companies: 3, users: 4 }));
  for (let start = 0; start < rows.length; start += 200) {
    await other.db
      .insertInto('orders')
      .values(rows.slice(start, start + 200))
      .execute();
  }
  return other;
}

// Lists are paged from cached anchors (db/anchored-paging.ts): every page of every order must be
// exactly what OFFSET paging of the same ordering gives, and a write by ANOTHER connection (as
// another server process would) must show on the next call.
describeEachDatabase('order list paged from anchors', (ctx) => {
  const count = ANCHOR_EVERY * 4 + 37;
  const pageSize = 100;
  let other: Database;
  const dsiIds = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    other = await withSeededOrders(ctx(), count, dsiIds);
  });

  afterAll(async () => {
    await other.close();
  });

  async function allPages(token: string, query: string): Promise<{ ids: string[]; totals: number[] }> {
    const ids: string[] = [];
    const totals: number[] = [];
    for (let pageNum = 1; ; pageNum += 1) {
      const response = await ctx().call('GET', `/ui/order/list?${query}&numberOfItems=${pageSize}&pageNum=${pageNum}`, { token });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<TPage<TOrder>>();
      totals.push(page.totalNumOfItems);
      if (page.data.length === 0) break;
      expect(page.totalNumOfPages).toBe(Math.ceil(page.totalNumOfItems / pageSize));
      ids.push(...page.data.map((order) => order.orderId));
    }
    return { ids, totals };
  }

  /** The same list by plain ordering in the database: the expected answer. */
  async function expected(column: 'id' | 'company_name' | 'created_at', direction: 'asc' | 'desc', company?: string) {
    let query = other.db.selectFrom('orders').select('id').where('archived', '=', 0);
    if (company) query = query.where('company_name', '=', company);
    const rows = await query.orderBy(sql.ref(column), direction).orderBy('id', direction).execute();
    return rows.map((row) => row.id);
  }

  it('gives every page exactly as OFFSET paging would, for each sort and filter, with an exact total', async () => {
    const token = await ctx().adminToken();
    for (const [query, column, direction, company] of [
      ['sortBy=orderId&sortOrder=asc', 'id', 'asc', undefined],
      ['sortBy=companyName&sortOrder=desc', 'company_name', 'desc', undefined],
      ['sortBy=dateCreated&sortOrder=desc', 'created_at', 'desc', undefined],
      ['sortBy=dateCreated&sortOrder=asc&filterByCompanyName=Company%20001', 'created_at', 'asc', 'Company 001'],
      // the filter fixes the sort value: pages seek on the id alone (ListOrdering.fixed)
      ['sortBy=companyName&sortOrder=desc&filterByCompanyName=Company%20001', 'company_name', 'desc', 'Company 001'],
    ] as const) {
      const want = await expected(column, direction, company);
      const got = await allPages(token, query);
      expect(got.ids, query).toEqual(want);
      expect(new Set(got.totals), query).toEqual(new Set([want.length]));
    }
  });

  it('sees at once what another connection inserts, archives or deletes', async () => {
    const token = await ctx().adminToken();
    const query = 'sortBy=companyName&sortOrder=asc';
    const before = await allPages(token, query);
    // a listed order (not archived)
    const added = {
      ...seededOrderRow(count + 1, dsiIds, Date.parse('2026-06-01T00:00:00Z'), { companies: 3, users: 4 }),
      archived: 0,
    };
    await other.db.insertInto('orders').values(added).execute();
    const afterInsert = await allPages(token, query);
    expect(afterInsert.ids).toEqual(await expected('company_name', 'asc'));
    expect(afterInsert.ids).toHaveLength(before.ids.length + 1);

    const gone = afterInsert.ids[ANCHOR_EVERY + 5]!;
    await other.db.updateTable('orders').set({ archived: 1 }).where('id', '=', gone).execute();
    const afterArchive = await allPages(token, query);
    expect(afterArchive.ids).not.toContain(gone);
    expect(afterArchive.ids).toEqual(await expected('company_name', 'asc'));

    // a write the list does not depend on (the allocated quantity) keeps the anchors
    const generation = await listGeneration();
    await other.db.updateTable('orders').set({ allocated: 1 }).where('id', '=', afterArchive.ids[0]!).execute();
    expect(await listGeneration()).toBe(generation);

    await other.db.deleteFrom('orders').where('id', '=', added.id).execute();
    expect((await allPages(token, query)).ids).toEqual(await expected('company_name', 'asc'));
  });

  it("pages one order's authorizations sorted by order (a value the filter fixes) exactly as OFFSET paging would", async () => {
    const token = await ctx().adminToken();
    const order = await other.db.selectFrom('orders').select(['id', 'dsi_id']).orderBy('id').executeTakeFirstOrThrow();
    const base = Date.parse('2026-02-01T00:00:00Z');
    const rows = Array.from({ length: ANCHOR_EVERY * 2 + 90 }, (_, i) => seededAuthorizationRow(order, i, base));
    for (let start = 0; start < rows.length; start += 200)
      await other.db
        .insertInto('authorizations')
        .values(rows.slice(start, start + 200))
        .execute();
    for (const direction of ['asc', 'desc'] as const) {
      const want = (
        await other.db
          .selectFrom('authorizations')
          .select('id')
          .where('archived', '=', 0)
          .where('order_id', '=', order.id)
          .orderBy('id', direction)
          .execute()
      ).map((row) => row.id);
      expect(want.length).toBeGreaterThan(ANCHOR_EVERY);
      const got: string[] = [];
      const totals = new Set<number>();
      for (let pageNum = 1; ; pageNum += 1) {
        const response = await ctx().call(
          'GET',
          `/ui/authorization/list?orderId=${order.id}&sortBy=orderId&sortOrder=${direction}&numberOfItems=${pageSize}&pageNum=${pageNum}`,
          { token },
        );
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json<TPage<TAuthorization>>();
        totals.add(page.totalNumOfItems);
        if (page.data.length === 0) break;
        got.push(...page.data.map((authorization) => authorization.authorizationId));
      }
      expect(got, direction).toEqual(want);
      expect(totals, direction).toEqual(new Set([want.length]));
    }
  });

  it("shows a user's list without the orders a deleted group gave them, at once", async () => {
    const { profile, token } = await ctx().createUser({ role: 'USER' });
    const now = new Date().toISOString();
    const groupId = await ctx().app.services.database.dialect.insertId(other.db, 'user_groups', {
      name: 'Paging group',
      name_key: `paging-${randomUUID()}`,
      description: '',
      created_at: now,
      updated_at: now,
    });
    const user = await other.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', profile.username)
      .executeTakeFirstOrThrow();
    await other.db.insertInto('user_group_members').values({ group_id: groupId, user_id: user.id }).execute();
    const visible = (await expected('id', 'asc')).slice(0, ANCHOR_EVERY + 3);
    await other.db
      .insertInto('order_groups')
      .values(visible.map((id) => ({ order_id: id, group_id: groupId })))
      .execute();
    const shown = await allPages(token, 'sortBy=orderId&sortOrder=asc');
    expect(shown.ids).toEqual(visible);
    // the group's deletion takes its members and orders with it (a cascade, which runs no trigger on MariaDB)
    await other.db.deleteFrom('user_groups').where('id', '=', groupId).execute();
    const after = await allPages(token, 'sortBy=orderId&sortOrder=asc');
    expect(after.ids).toEqual([]);
    expect(after.totals).toEqual([0]);
  });

  it('pages a search from anchors a few matches apart, exactly as OFFSET paging would', async () => {
    const token = await ctx().adminToken();
    const now = new Date().toISOString();
    // 150 users, every third matching the search in one of the four searched columns
    const users = Array.from({ length: 150 }, (_, i) => {
      const username = `paging-${String(i).padStart(3, '0')}-${randomUUID().slice(0, 4)}`;
      const match = i % 3 === 0;
      return {
        username,
        username_key: username.toLowerCase(),
        password_hash: null,
        first_name: match && i % 2 === 0 ? 'Zebra' : 'First',
        last_name: match && i % 2 === 1 ? 'ZEBRA-team' : 'Last',
        email: `${username}@example.com`,
        company: null,
        role: 'USER',
        time_zone: 'UTC',
        language: 'en_US',
        use_sso: 0,
        created_at: now,
        updated_at: now,
      };
    });
    await other.db.insertInto('users').values(users).execute();
    const want = (
      await other.db
        .selectFrom('users')
        .select('username')
        .where((eb) => eb.or([eb('first_name', '=', 'Zebra'), eb('last_name', '=', 'ZEBRA-team')]))
        .orderBy('username')
        .orderBy('id')
        .execute()
    ).map((row) => row.username);
    expect(want).toHaveLength(50);
    const got: string[] = [];
    const totals = new Set<number>();
    for (let pageNum = 1; ; pageNum += 1) {
      const response = await ctx().call('GET', `/ui/user/list?search=zebra&numberOfItems=7&pageNum=${pageNum}`, { token });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<TPage<{ username: string }>>();
      totals.add(page.totalNumOfItems);
      if (page.data.length === 0) break;
      got.push(...page.data.map((user) => user.username));
    }
    expect(got).toEqual(want);
    expect(totals).toEqual(new Set([50]));
    // the last page first, on a list whose anchors were just renewed
    await other.db.updateTable('users').set({ first_name: 'Zebra' }).where('username', '=', users[1]!.username).execute();
    const last = (await ctx().call('GET', '/ui/user/list?search=zebra&numberOfItems=7&pageNum=8', { token })).json<
      TPage<{ username: string }>
    >();
    const wantAfter = [...want, users[1]!.username].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    expect(last.data.map((user) => user.username)).toEqual(wantAfter.slice(49, 56));
  });

  it('reads a list through the index that serves its filters and order, which MariaDB is told (FORCE INDEX)', async () => {
    const token = await ctx().adminToken();
    const order = await other.db.selectFrom('orders').select(['id', 'dsi_id']).orderBy('id', 'desc').executeTakeFirstOrThrow();
    const base = Date.parse('2026-03-01T00:00:00Z');
    await other.db
      .insertInto('authorizations')
      .values(Array.from({ length: 60 }, (_, i) => seededAuthorizationRow(order, i, base)))
      .execute();
    const deepPage = Math.floor((ANCHOR_EVERY * 2) / 10) + 1;
    const companyPage = Math.floor(ANCHOR_EVERY / 10) + 2;
    const hinted = vi.spyOn(ForceIndex.prototype, 'transformQuery');
    try {
      for (const [path, index] of [
        // pages past the first anchors (an order list's page of 10 after two, one company's after one)
        [`/ui/order/list?sortBy=orderId&sortOrder=asc&numberOfItems=10&pageNum=${deepPage}`, 'orders_archived_id_idx'],
        [
          `/ui/order/list?sortBy=dateCreated&sortOrder=desc&filterByCompanyName=Company%20001&numberOfItems=10&pageNum=${companyPage}`,
          'orders_archived_company_created_idx',
        ],
        [
          `/ui/authorization/list?orderId=${order.id}&sortBy=orderId&sortOrder=asc&numberOfItems=10&pageNum=2`,
          'authorizations_archived_id_idx',
        ],
        [
          '/ui/authorization/list?filterByCompanyName=Company%201&sortBy=dateCreated&sortOrder=desc&numberOfItems=10&pageNum=1',
          'authorizations_archived_company_created_idx',
        ],
      ] as const) {
        hinted.mockClear();
        const response = await ctx().call('GET', path, { token });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json<TPage<unknown>>().data).toHaveLength(10);
        if (ctx().kind !== 'mysql') {
          expect(hinted, path).not.toHaveBeenCalled();
          continue;
        }
        // every query of the page (count, anchors, page) names the index, and MariaDB's plan reads it
        await expectIndexRead(other, hinted, index, path);
      }
    } finally {
      hinted.mockRestore();
    }
  });

  async function listGeneration(): Promise<string> {
    return (await readListState(other.db, ['orders'])).generation;
  }
});

/**
 * Every query `hinted` (a spy on `ForceIndex.transformQuery`) saw names `index`, and MariaDB's plan
 * reads that index in its order, never sorting.
 */
async function expectIndexRead(
  other: Database,
  hinted: MockInstance<ForceIndex['transformQuery']>,
  index: string,
  label: string,
): Promise<void> {
  const queries = hinted.mock.results.map((result) =>
    other.db.getExecutor().compileQuery(result.value as RootOperationNode, createQueryId()),
  );
  expect(queries.length, label).toBeGreaterThan(0);
  for (const query of queries) {
    expect(query.sql, label).toContain(`force index (\`${index}\`)`);
    const plan = await other.db.executeQuery<{ table: string; key: string | null; Extra: string | null }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    const [table] = index.split('_');
    expect(
      plan.rows.filter((row) => row.table === table).map((row) => row.key),
      query.sql,
    ).toEqual([index]);
    // read in the index's order, never sorted: a literal of another collation than the tables'
    // was no constant to MariaDB's ordering, and it sorted every row of the filter's value
    expect(
      plan.rows.map((row) => row.Extra ?? ''),
      query.sql,
    ).not.toContainEqual(expect.stringContaining('filesort'));
  }
}

// A page further than LAY_AHEAD anchors from every anchor the list knows is reached by a jump
// (one skip through the sort index to LAY_AHEAD anchors before it, then those laid as before):
// whatever order pages are asked in, each must be exactly what OFFSET paging gives.
describeEachDatabase('order list pages reached by a jump', (ctx) => {
  const count = ANCHOR_EVERY * (LAY_AHEAD * 2 + 8) + 61;
  let other: Database;

  beforeAll(async () => {
    other = await withSeededOrders(ctx(), count, [randomUUID(), randomUUID()]);
  });

  afterAll(async () => {
    await other.close();
  });

  async function expected(column: 'id' | 'created_at', direction: 'asc' | 'desc'): Promise<string[]> {
    const rows = await other.db
      .selectFrom('orders')
      .select('id')
      .where('archived', '=', 0)
      .orderBy(sql.ref(column), direction)
      .orderBy('id', direction)
      .execute();
    return rows.map((row) => row.id);
  }

  async function page(token: string, query: string, size: number, pageNum: number): Promise<TPage<TOrder>> {
    const response = await ctx().call('GET', `/ui/order/list?${query}&numberOfItems=${size}&pageNum=${pageNum}`, { token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TPage<TOrder>>();
  }

  /** The order list's sorts the jumps are tried with: its query, and the column and direction it sorts by. */
  const sortings = [
    ['sortBy=orderId&sortOrder=asc', 'id', 'asc'],
    ['sortBy=dateCreated&sortOrder=desc', 'created_at', 'desc'],
  ] as const;

  /** `got` is page `pageNum` of `want` (every listed id, in order) in pages of `size`, with its total. */
  function expectPageOf(got: TPage<TOrder>, want: string[], size: number, pageNum: number, label: string): void {
    expect(got.totalNumOfItems, label).toBe(want.length);
    expect(
      got.data.map((order) => order.orderId),
      `${label}, page ${pageNum}`,
    ).toEqual(want.slice((pageNum - 1) * size, pageNum * size));
  }

  it('gives the last page first, then pages backwards, the middle and the first exactly as OFFSET paging would', async () => {
    const token = await ctx().adminToken();
    for (const [[query, column, direction], size] of sortings.map((sorting, i) => [sorting, [10, 100][i]!] as const)) {
      const want = await expected(column, direction);
      const pages = Math.ceil(want.length / size);
      const middle = Math.floor(pages / 2);
      // the last page first (a jump from the list's start), back through the anchors laid before
      // it and past them (a jump from the start again), then the middle (a jump) and the first
      const visits = [pages, pages - 1, pages - 14, pages - 30, middle + 1, middle, 2, 1, pages - 31];
      for (const pageNum of visits) expectPageOf(await page(token, query, size, pageNum), want, size, pageNum, query);
    }
  });

  it('jumps again after another connection changes the list, and stays exact', async () => {
    const token = await ctx().adminToken();
    const query = 'sortBy=orderId&sortOrder=asc';
    const before = await expected('id', 'asc');
    await other.db
      .updateTable('orders')
      .set({ archived: 1 })
      .where('id', '=', before[ANCHOR_EVERY * 3 + 7]!)
      .execute();
    const want = await expected('id', 'asc');
    expect(want).toHaveLength(before.length - 1);
    const size = 25;
    const pages = Math.ceil(want.length / size);
    const hinted = vi.spyOn(ForceIndex.prototype, 'transformQuery');
    try {
      for (const pageNum of [pages, Math.ceil(pages / 2), 3]) {
        hinted.mockClear();
        expectPageOf(await page(token, query, size, pageNum), want, size, pageNum, query);
        // MariaDB: the jump, the anchors and the page read the list's index in its order
        if (ctx().kind === 'mysql') await expectIndexRead(other, hinted, 'orders_archived_id_idx', `page ${pageNum}`);
        else expect(hinted).not.toHaveBeenCalled();
      }
    } finally {
      hinted.mockRestore();
    }
  });

  it('answers pages asked at once, near and far, each exactly as OFFSET paging would', async () => {
    const token = await ctx().adminToken();
    for (const [[query, column, direction], size] of sortings.map((sorting, i) => [sorting, [10, 30][i]!] as const)) {
      // a change first: the list's anchors start again from none
      const listed = await expected(column, direction);
      await other.db
        .updateTable('orders')
        .set({ archived: 1 })
        .where('id', '=', listed[ANCHOR_EVERY + 3]!)
        .execute();
      const want = await expected(column, direction);
      const pages = Math.ceil(want.length / size);
      // jumps to far pages racing each other and the extensions of the pages near them
      const visits = [pages, 1, Math.ceil(pages / 2), pages - 1, 2, Math.ceil(pages / 3), pages - 20, Math.ceil(pages / 2) + 1];
      const answers = await Promise.all(visits.map((pageNum) => page(token, query, size, pageNum)));
      answers.forEach((got, i) => expectPageOf(got, want, size, visits[i]!, query));
    }
  });

  it('stays exact over a random walk of visits far and near with changes between them', async () => {
    const token = await ctx().adminToken();
    const query = 'sortBy=dateCreated&sortOrder=asc';
    // a fixed seed (a linear congruential generator): the same walk in every run
    let state = 20261201;
    const next = (below: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 16) % below;
    };
    const size = 20;
    let want = await expected('created_at', 'asc');
    let last = 1;
    for (let step = 0; step < 40; step += 1) {
      if (next(4) === 0) {
        // another connection archives a listed order or brings an archived one back
        const archived = await other.db.selectFrom('orders').select('id').where('archived', '=', 1).orderBy('id').execute();
        const unarchive = next(2) === 0 && archived.length > 0;
        const id = unarchive ? archived[next(archived.length)]!.id : want[next(want.length)]!;
        await other.db
          .updateTable('orders')
          .set({ archived: unarchive ? 0 : 1 })
          .where('id', '=', id)
          .execute();
        want = await expected('created_at', 'asc');
      }
      const pages = Math.ceil(want.length / size);
      // a far page (anywhere), or one next to the last visited
      const pageNum = next(2) === 0 ? 1 + next(pages) : Math.min(pages, Math.max(1, last + next(5) - 2));
      expectPageOf(await page(token, query, size, pageNum), want, size, pageNum, `step ${step}`);
      last = pageNum;
    }
  });
});
