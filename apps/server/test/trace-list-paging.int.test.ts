import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TPage } from '@manifold/contract';
import { ANCHOR_EVERY } from '../src/db/anchored-paging.js';
import { createDatabase, type Database } from '../src/db/database.js';
import type { BuildsTable } from '../src/db/schema-trace.js';
import { seededAuditKinds, seededAuditRow, seededBuildRow, seededPartRow, seededTraceEventRow } from './helpers/seeded-rows.js';
import { describeEachDatabase } from './helpers/test-app.js';

// The event, audit, part and build lists page from anchors with sizes the triggers keep
// (db/anchored-paging.ts, migration 033): every page, filtered or not, must be exactly what OFFSET
// paging of the same ordering gives, with the exact total, and what another connection writes (as
// another server process would) must show on the next call.
describeEachDatabase('event, audit, part and build lists paged from anchors', (ctx) => {
  const count = ANCHOR_EVERY * 2 + 37;
  const pageSize = 100;
  const base = Date.parse('2026-01-01T00:00:00Z');
  const machines = [randomUUID(), randomUUID(), randomUUID()];
  const designs = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const order = { id: randomUUID(), dsi_id: designs[0]! };
  let other: Database;
  let builds: BuildsTable[];

  beforeAll(async () => {
    other = createDatabase(ctx().config.database);
    const insert = async <T>(table: 'trace_events' | 'audit_events' | 'builds' | 'parts', rows: T[]) => {
      for (let start = 0; start < rows.length; start += 200)
        await other.db
          .insertInto(table)
          .values(rows.slice(start, start + 200) as never)
          .execute();
    };
    await insert(
      'trace_events',
      Array.from({ length: count }, (_, i) => seededTraceEventRow(i, base, machines, designs)),
    );
    await insert(
      'audit_events',
      Array.from({ length: count }, (_, i) => seededAuditRow(i, base)),
    );
    builds = Array.from({ length: count }, (_, i) =>
      seededBuildRow(i, base, { id: order.id, dsi_id: designs[i % designs.length]! }, machines[i % machines.length]!),
    );
    await insert('builds', builds);
    await insert(
      'parts',
      Array.from({ length: count }, (_, i) => seededPartRow(i, base, builds[i]!)),
    );
  });

  afterAll(async () => {
    await other.close();
  });

  /** Every page of a list, each with its total. */
  async function allPages(url: string): Promise<{ ids: string[]; totals: Set<number> }> {
    const token = await ctx().adminToken();
    const ids: string[] = [];
    const totals = new Set<number>();
    for (let pageNum = 1; ; pageNum += 1) {
      const response = await ctx().call(
        'GET',
        `${url}${url.includes('?') ? '&' : '?'}numberOfItems=${pageSize}&pageNum=${pageNum}`,
        {
          token,
        },
      );
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<TPage<{ id?: string | number; buildId?: string }>>();
      totals.add(page.totalNumOfItems);
      if (page.data.length === 0) break;
      expect(page.totalNumOfPages).toBe(Math.ceil(page.totalNumOfItems / pageSize));
      ids.push(...page.data.map((entry) => String(entry.id ?? entry.buildId)));
    }
    return { ids, totals };
  }

  type Listed = 'trace_events' | 'audit_events' | 'builds' | 'parts';
  const ordering: Record<Listed, { id: string; time: string }> = {
    trace_events: { id: 'event_id', time: 'received_at' },
    audit_events: { id: 'id', time: 'created_at' },
    builds: { id: 'id', time: 'created_at' },
    parts: { id: 'id', time: 'created_at' },
  };

  /** The same list by plain ordering in the database, newest first: the expected answer. */
  async function expected(table: Listed, where: [string, unknown][] = []): Promise<string[]> {
    const { id, time } = ordering[table];
    const filter =
      where.length > 0
        ? sql`where ${sql.join(
            where.map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
            sql` and `,
          )}`
        : sql``;
    const { rows } = await sql<{ id: string | number }>`select ${sql.ref(id)} as id from ${sql.table(table)} ${filter}
      order by ${sql.ref(time)} desc, ${sql.ref(id)} desc`.execute(other.db);
    return rows.map((row) => String(row.id));
  }

  const lists: [string, Listed, [string, unknown][]][] = [
    ['/ui/event/list', 'trace_events', []],
    [`/ui/event/list?dsiId=${designs[1]}`, 'trace_events', [['dsi_id', designs[1]]]],
    ['/ui/audit/list', 'audit_events', []],
    [`/ui/audit/list?kind=${seededAuditKinds[2]}`, 'audit_events', [['event_type', seededAuditKinds[2]]]],
    ['/ui/audit/list?actor=user1', 'audit_events', [['actor', 'user1']]],
    ['/ui/audit/list?subject=subject-3', 'audit_events', [['subject', 'subject-3']]],
    [
      `/ui/audit/list?kind=${seededAuditKinds[1]}&actor=user2`,
      'audit_events',
      [
        ['event_type', seededAuditKinds[1]],
        ['actor', 'user2'],
      ],
    ],
    ['/ui/build/list', 'builds', []],
    [`/ui/build/list?dsiId=${designs[2]}`, 'builds', [['dsi_id', designs[2]]]],
    ['/ui/part/list', 'parts', []],
    [`/ui/part/list?dsiId=${designs[3]}`, 'parts', [['dsi_id', designs[3]]]],
    ['/ui/part/list?serialNumber=P-7', 'parts', [['serial_number', 'P-7']]],
  ];

  it('gives every page exactly as OFFSET paging would, filtered or not, with an exact total', async () => {
    for (const [url, table, where] of lists) {
      const want = await expected(table, where);
      const got = await allPages(url);
      expect(got.ids, url).toEqual(want);
      expect(got.totals, url).toEqual(new Set([want.length]));
    }
  });

  it('shows at once what another connection adds', async () => {
    const i = count + 5;
    const event = seededTraceEventRow(i, base, machines, designs);
    await other.db.insertInto('trace_events').values(event).execute();
    await other.db.insertInto('audit_events').values(seededAuditRow(i, base)).execute();
    const build = seededBuildRow(i, base, { id: order.id, dsi_id: designs[3]! }, machines[0]!);
    await other.db.insertInto('builds').values(build).execute();
    await other.db
      .insertInto('parts')
      .values(seededPartRow(i, base, build))
      .execute();
    for (const [url, table, where] of lists) {
      const want = await expected(table, where);
      const got = await allPages(url);
      expect(got.ids, url).toEqual(want);
      expect(got.totals, url).toEqual(new Set([want.length]));
    }
    expect((await allPages(`/ui/event/list?dsiId=${event.dsi_id}`)).ids[0]).toBe(event.event_id);
  });
});
