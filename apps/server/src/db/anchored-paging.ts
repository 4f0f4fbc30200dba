import {
  type Expression,
  type Kysely,
  MysqlAdapter,
  PostgresAdapter,
  type SelectQueryBuilder,
  SqliteAdapter,
  type SqlBool,
  sql,
} from 'kysely';
import { containsIgnoringCase, ForceIndex, type TableIndex } from './dialect.js';
import { PLAN_WITH_VALUES } from './pg-named-statements.js';
import type { DatabaseKind } from '../config.js';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { ListTable } from './migrations/033-list-counts.js';
import { countRows, pageOffset, toPage } from './paging.js';
import type { DB } from './schema.js';

/** Rows between two page anchors: a page costs at most this many skipped index entries. */
export const ANCHOR_EVERY = 128;
/**
 * Anchors laid in one read after the nearest known one: a page further than this from every known
 * anchor is reached by a jump instead ({@link AnchorCache.jump}).
 */
export const LAY_AHEAD = 16;
/** Lists (filter, sort, viewer) whose anchors are kept, least recently used dropped first. */
const KEPT_LISTS = 256;

/** The one order of a list: a sort value that is never NULL, then a unique id. */
export interface ListOrdering {
  value: Expression<unknown>;
  id: Expression<unknown>;
  direction: 'asc' | 'desc';
  /** The value is an expression (an expression index serves it), not a column. */
  computed?: boolean;
  /**
   * A filter fixes the value (`order_id = ?` in a list sorted by order): every row has the same,
   * so a page seeks on the id alone. SQLite reads a row value whose first column an equality
   * already fixes as no bound at all: it read every row of the value up to the page.
   */
  fixed?: boolean;
  /**
   * The value is the id itself (a list sorted by id): rows are ordered and sought by the id alone.
   * SQLite does not see that `order by id, id` is ordered by the index: it sorted every row again
   * on the repeated term (skipping 500,000 orders: 136 ms against 23 ms).
   */
  byId?: boolean;
  /**
   * The index that serves the list's filters and this order (equalities, then the value, then the
   * id). MariaDB is told to read it (`FORCE INDEX`): at 1,000,000 orders it otherwise read the
   * archived switch's prefix of the (archived, id) index and filtered the ids (342 ms a middle
   * page), and one order's authorizations through the clustered primary key (272 ms a first page).
   */
  index?: TableIndex;
}

/**
 * Which list, for the cache: `key` names the filters, sort and viewer; `tables` what changes it.
 * `counted`: the list's rows are exactly those of these counted keys of `tables[0]`
 * (`listKey`), so its size is read from the kept sums instead of counted.
 */
export interface ListIdentity {
  key: string;
  tables: readonly ListTable[];
  counted?: readonly string[];
  /**
   * A search: the rows of which one of `columns` contains `term`, ignoring case (no index serves
   * it: every row is read to find the matches). The list keeps an anchor every few matches
   * ({@link SEARCH_ANCHOR_EVERY}) and reads its rows by key.
   */
  search?: { columns: readonly string[]; term: string };
  /**
   * The page's rows are read by their ids after the ids are read from the sort index: for rows
   * wider than the index, so skipping to the page reads index entries only.
   */
  readByKey?: boolean;
}

/** Matches between anchors of a searched list: a page then reads about as many rows as the first. */
export const SEARCH_ANCHOR_EVERY = 4;
/** Anchors kept per list at most: a longer list keeps them further apart. */
const MAX_POINTS = 8_192;

/**
 * The value of a counted key (migration 033's `countedKeys`) for these column values, as the
 * triggers write it: the key's name, a colon, the values joined by `|` (NULL as empty).
 */
export function listKey(name: string, values: readonly (string | number | null | undefined)[]): string {
  return `${name}:${values.map((value) => (value === null || value === undefined ? '' : String(value))).join('|')}`;
}

/** The counted key of all of a table's rows. */
export const WHOLE_TABLE = '';

interface Anchor {
  v: unknown;
  k: unknown;
}

/**
 * A list as of one generation: its size and, where pages were asked for, the sort key of every
 * `every`-th row (`points[i]` is the row at position (i + 1) × every − 1). A sparse array: the
 * anchors before a page reached by a jump are laid only when a page needs them.
 */
interface Anchors {
  generation: string;
  total: number;
  every: number;
  points: Anchor[];
  /** Extensions of `points` run one at a time. */
  extending: Promise<void>;
}

/** `query` in the list's order: by the value, then the id (by the id alone when the value is the id). */
function inListOrder<TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  ordering: ListOrdering,
): SelectQueryBuilder<DB, TB, O> {
  return (ordering.byId ? query : query.orderBy(ordering.value, ordering.direction)).orderBy(ordering.id, ordering.direction);
}

/** The highest index at or below `index` that holds an anchor, or −1 (the list's start). */
function knownAnchorAtOrBelow(points: readonly (Anchor | undefined)[], index: number): number {
  for (let i = Math.min(index, points.length - 1); i >= 0; i -= 1) if (points[i] !== undefined) return i;
  return -1;
}

class AnchorCache {
  private readonly lists = new Map<string, Anchors>();
  private readonly counting = new Map<string, Promise<Anchors>>();

  readonly mysql: boolean;
  private readonly sqlite: boolean;
  readonly postgres: boolean;

  constructor(private readonly db: Kysely<DB>) {
    const adapter = db.getExecutor().adapter;
    this.mysql = adapter instanceof MysqlAdapter;
    this.sqlite = adapter instanceof SqliteAdapter;
    this.postgres = adapter instanceof PostgresAdapter;
  }

  /**
   * The list's anchors for the current generation: kept ones, or a new entry with the list's size
   * (kept, or counted: read after the generation, so never older than the generation it is filed under).
   */
  async anchors<TB extends keyof DB>(list: ListIdentity, base: SelectQueryBuilder<DB, TB, object>): Promise<Anchors> {
    const { generation, total } = await readListState(this.db, list.tables, list.counted);
    const kept = this.lists.get(list.key);
    if (kept?.generation === generation) {
      this.lists.delete(list.key);
      this.lists.set(list.key, kept);
      return kept;
    }
    const flight = `${list.key}\u0000${generation}`;
    let counting = this.counting.get(flight);
    if (!counting) {
      counting = (total === undefined ? countRows(base) : Promise.resolve(total))
        .then((size) => ({
          generation,
          total: size,
          every: Math.max(list.search ? SEARCH_ANCHOR_EVERY : ANCHOR_EVERY, Math.ceil(size / MAX_POINTS)),
          points: [],
          extending: Promise.resolve(),
        }))
        .finally(() => this.counting.delete(flight));
      this.counting.set(flight, counting);
    }
    const counted = await counting;
    const current = this.lists.get(list.key);
    if (current?.generation === generation) return current;
    this.lists.delete(list.key);
    this.lists.set(list.key, counted);
    if (this.lists.size > KEPT_LISTS) this.lists.delete(this.lists.keys().next().value!);
    return counted;
  }

  /**
   * Makes sure `anchors.points[count - 1]` is known (when the list is that long), reading from the
   * nearest known anchor before it: within {@link LAY_AHEAD} anchors, the rows up to it in one
   * read, in the list's order, numbered, every `every`-th kept; further, first a jump to
   * {@link LAY_AHEAD} anchors before it, then those. So the first visit to a deep page after a
   * change costs one skip through the sort index, not a numbered read of every row before it
   * (the last of 1,000,000 orders: SQLite 26 ms against 636, MariaDB 236 against 1,765), and the
   * pages next to it are laid as before. A search lays every anchor (PostgreSQL planned a search's page as a scan and sort
   * until it was kept apart: a skip through one is not tried).
   */
  async extend<TB extends keyof DB>(
    anchors: Anchors,
    count: number,
    base: SelectQueryBuilder<DB, TB, object>,
    ordering: ListOrdering,
    searched: boolean,
  ): Promise<void> {
    const step = async () => {
      const target = count - 1;
      if (target < 0 || anchors.points[target] !== undefined) return;
      let known = knownAnchorAtOrBelow(anchors.points, target);
      if (!searched && target - known > LAY_AHEAD) {
        const landing = target - LAY_AHEAD;
        const point = await this.jump(anchors, known, landing, base, ordering);
        if (!point) return;
        anchors.points[landing] = point;
        known = landing;
      }
      const missing = target - known;
      const direction = sql.raw(ordering.direction);
      const rows = this.keysAfter(base, ordering, anchors.points[known]).limit(missing * anchors.every);
      const { rows: points } = await sql<Anchor>`
        select v, k from (
          select t.v, t.k, row_number() over (order by t.v ${direction}, t.k ${direction}) as n from (${rows}) t
        ) u where u.n % ${anchors.every} = 0 order by u.n`.execute(this.db);
      points.forEach((point, i) => (anchors.points[known + 1 + i] = point));
    };
    anchors.extending = anchors.extending.then(step, step);
    await anchors.extending;
  }

  /**
   * The anchor at index `to`, read by skipping from the anchor at `from` (−1: the list's start)
   * through the sort index: the row (to − from) × every rows after it. PostgreSQL plans it with
   * the skip known (a generic plan knows neither it nor the limit).
   */
  private async jump<TB extends keyof DB>(
    anchors: Anchors,
    from: number,
    to: number,
    base: SelectQueryBuilder<DB, TB, object>,
    ordering: ListOrdering,
  ): Promise<Anchor | undefined> {
    const query = this.keysAfter(base, ordering, anchors.points[from])
      .limit(1)
      .offset((to - from) * anchors.every - 1);
    const plan = sql.raw(this.postgres ? `${PLAN_WITH_VALUES} ` : '');
    const { rows } = await sql<Anchor>`${plan}select v, k from (${query}) j`.execute(this.db);
    return rows[0];
  }

  /** The sort keys (`v`, `k`) of the list's rows after `anchor` (from its start without one), in its order. */
  private keysAfter<TB extends keyof DB>(
    base: SelectQueryBuilder<DB, TB, object>,
    ordering: ListOrdering,
    anchor: Anchor | undefined,
  ) {
    const from = anchor ? base.where(this.after(ordering, anchor)) : base;
    return inListOrder(from.select([sql`${ordering.value}`.as('v'), sql`${ordering.id}`.as('k')]), ordering);
  }

  /**
   * Rows after `anchor` in `ordering`, written so the database seeks to the anchor in the sort index:
   * - a row value `(value, id) > (v, k)`, which SQLite and PostgreSQL seek with exactly, however
   *   many rows share the anchor's value;
   * - on MariaDB, whose range optimiser uses no row value, the same as two ranges of the index
   *   (`value > v`, or `value = v and id > k`), which it reads in index order;
   * - for a computed value on SQLite, which seeks an expression index with no row value, the
   *   value's bound, then the tie broken by the id among the rows of the anchor's value;
   * - for a value a filter fixes, the id alone.
   */
  after(ordering: ListOrdering, anchor: Anchor): Expression<SqlBool> {
    const { value, id } = ordering;
    const op = sql.raw(ordering.direction === 'asc' ? '>' : '<');
    if (ordering.fixed || ordering.byId) return sql<SqlBool>`${id} ${op} ${anchor.k}`;
    if (this.mysql) return sql<SqlBool>`(${value} ${op} ${anchor.v} or (${value} = ${anchor.v} and ${id} ${op} ${anchor.k}))`;
    if (ordering.computed && this.sqlite) {
      const bound = sql.raw(ordering.direction === 'asc' ? '>=' : '<=');
      return sql<SqlBool>`(${value} ${bound} ${anchor.v} and (${value} ${op} ${anchor.v} or ${id} ${op} ${anchor.k}))`;
    }
    return sql<SqlBool>`((${value}, ${id}) ${op} (${anchor.v}, ${anchor.k}))`;
  }
}

/** What a list's page needs to know before it reads: its tables' generation and, for a counted list, its size. */
export interface ListState {
  /** The sum of the tables' weights: it moves with every committed write that changes them. */
  generation: string;
  /** The counted list's size (`ListIdentity.counted`). */
  total?: number;
}

/** The list state of `tables` (and the size of the counted keys `counted` of `tables[0]`), in one read of a few shard rows. */
export async function readListState(
  db: Kysely<DB>,
  tables: readonly ListTable[],
  counted?: readonly string[],
): Promise<ListState> {
  const size = counted
    ? sql`(select coalesce(sum(total), 0) from list_counts where name = ${tables[0]} and list_key in (${sql.join(counted)}))`
    : sql`null`;
  const { rows } = await sql<{ g: number | string; total: number | string | null }>`
    select (select coalesce(sum(weight), 0) from list_counts where name in (${sql.join(tables)}) and list_key = '') as g, ${size} as total`.execute(
    db,
  );
  const row = rows[0]!;
  const generation = String(row.g);
  return row.total === null ? { generation } : { generation, total: Number(row.total) };
}

const caches = new WeakMap<Kysely<DB>, AnchorCache>();

function cacheOf(db: Kysely<DB>): AnchorCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new AnchorCache(db);
    caches.set(db, cache);
  }
  return cache;
}

/**
 * Pages a list of any length at the cost of its first page. The list's size and the sort key of
 * every ANCHOR_EVERY-th row (`list.anchorEvery`) are kept per list (filters, sort, viewer:
 * `list.key`) and reused while no committed write changed the list's tables (their generation in
 * `list_counts`, read with the list's kept size in one query); a page then starts from the anchor
 * before it and skips fewer rows than lie between two anchors. The total is exact. After a change,
 * the list's size is read again (kept by the triggers for a counted list, counted otherwise), and
 * the first call for a deep page skips through the sort index once to a few anchors before it and
 * lays those ({@link AnchorCache.extend}).
 */
export async function paginateAnchored<TB extends keyof DB, O, T>(
  db: Kysely<DB>,
  list: ListIdentity,
  base: SelectQueryBuilder<DB, TB, object>,
  ordering: ListOrdering,
  page: TPageQuery,
  rows: (base: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  map: (rows: O[]) => T[] | Promise<T[]>,
): Promise<TPage<T>> {
  const cache = cacheOf(db);
  const { search } = list;
  const matching = (query: SelectQueryBuilder<DB, TB, object>) =>
    search ? query.where((eb) => eb.or(search.columns.map((name) => containsIgnoringCase(name, search.term)))) : query;
  // the list's rows in its order, through its index on MariaDB (rows read by key are not)
  const sorted = cache.mysql && ordering.index ? base.withPlugin(new ForceIndex(ordering.index)) : base;
  const listed = matching(sorted);
  const anchors = await cache.anchors(list, listed);
  const offset = pageOffset(page);
  let found: O[] = [];
  if (offset < anchors.total) {
    const wanted = Math.floor(offset / anchors.every);
    if (wanted > 0 && anchors.points[wanted - 1] === undefined) await cache.extend(anchors, wanted, listed, ordering, !!search);
    const index = knownAnchorAtOrBelow(anchors.points, wanted - 1) + 1;
    const from = index === 0 ? sorted : sorted.where(cache.after(ordering, anchors.points[index - 1]!));
    const skip = offset - index * anchors.every;
    const ordered = <R>(query: SelectQueryBuilder<DB, TB, R>) => inListOrder(query, ordering);
    if (search && cache.postgres) {
      // PostgreSQL expects a search to match few rows (a substring's selectivity is a guess) and
      // would read them all and sort them: searched outside the ordered rows (OFFSET 0 keeps them
      // apart), planned with the anchor and the limit known, and with sorting ruled out for this
      // one statement (where the table's rows lie apart from the index's order, it otherwise still
      // chose to read the whole table and sort it: 1.5 s for a middle page of 1,000,000 users), it
      // reads the sort index in order and stops at the page
      const direction = sql.raw(ordering.direction);
      const inner = ordered(
        from.select([
          sql`${ordering.value}`.as('v'),
          sql`${ordering.id}`.as('k'),
          ...search.columns.map((name, i) => sql`${sql.ref(name)}`.as(`c${i}`)),
        ]),
      ).offset(0);
      const query = sql<{ k: unknown }>`${sql.raw(PLAN_WITH_VALUES)} select s.k from (${inner}) s
        where ${sql.join(
          search.columns.map((_, i) => containsIgnoringCase(`s.c${i}`, search.term)),
          sql` or `,
        )}
        order by s.v ${direction}, s.k ${direction} limit ${page.numberOfItems} offset ${skip}`;
      const keys = await inOrderRead(db, async (reader) => (await query.execute(reader)).rows);
      if (keys.length > 0) found = await byKey(keys.map((key) => key.k));
    } else if (list.readByKey || search) {
      // the page's keys from the sort index alone (the rows skipped to reach it are never read), then its rows
      const keys = await ordered(matching(from).select(sql`${ordering.id}`.as('k')))
        .limit(page.numberOfItems)
        .offset(skip)
        .execute();
      if (keys.length > 0) found = await byKey(keys.map((key) => (key as { k: unknown }).k));
    } else {
      found = await ordered(rows(from)).limit(page.numberOfItems).offset(skip).execute();
    }
    async function byKey(ids: unknown[]): Promise<O[]> {
      return ordered(rows(base.where(sql<SqlBool>`${ordering.id} in (${sql.join(ids)})`))).execute();
    }
  }
  return toPage(page, anchors.total, await map(found));
}

/**
 * Runs `read` in a transaction of its own in which PostgreSQL may not sort (`enable_sort` off, for
 * this transaction only): the planner then reads an ordered query's rows in the order of an index
 * that has it. In a caller's transaction, which the setting would outlive, `read` runs as it is.
 */
async function inOrderRead<R>(db: Kysely<DB>, read: (reader: Kysely<DB>) => Promise<R>): Promise<R> {
  if (db.isTransaction) return read(db);
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_sort = off`.execute(trx);
    return read(trx);
  });
}

/**
 * Moves the counts of connections that have ended into shard 0 (each count's sum stays the same:
 * the rows moved are exactly the ones deleted, `returning`), and drops counted keys left empty.
 * Answers the rows moved. SQLite writes only shard 0: nothing to move.
 */
export async function mergeEndedShards(db: Kysely<DB>, kind: DatabaseKind): Promise<number> {
  if (kind === 'sqlite') return 0;
  const live = kind === 'postgres' ? sql`select pid from pg_stat_activity` : sql`select id from information_schema.processlist`;
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      const moved = await sql<{ name: string; list_key: string; total: number | string; weight: number | string }>`
        delete from list_counts where shard <> 0 and shard not in (${live}) returning name, list_key, total, weight`.execute(trx);
      const sums = new Map<string, { name: string; list_key: string; shard: number; total: bigint; weight: bigint }>();
      for (const row of moved.rows) {
        const id = `${row.name}\u0000${row.list_key}`;
        const sum = sums.get(id) ?? { name: row.name, list_key: row.list_key, shard: 0, total: 0n, weight: 0n };
        sum.total += BigInt(row.total);
        sum.weight += BigInt(row.weight);
        sums.set(id, sum);
      }
      const values = [...sums.values()].map((sum) => ({ ...sum, total: sum.total.toString(), weight: sum.weight.toString() }));
      for (let start = 0; start < values.length; start += 1000) {
        const insert = trx.insertInto('list_counts').values(values.slice(start, start + 1000));
        await (
          kind === 'mysql'
            ? insert.onDuplicateKeyUpdate({ total: sql`total + values(total)`, weight: sql`weight + values(weight)` })
            : insert.onConflict((conflict) =>
                conflict.columns(['name', 'list_key', 'shard']).doUpdateSet({
                  total: sql`list_counts.total + excluded.total`,
                  weight: sql`list_counts.weight + excluded.weight`,
                }),
              )
        ).execute();
      }
      // a key's only count left at 0 in shard 0: the key holds no rows (the table's own key keeps its weight)
      await trx.deleteFrom('list_counts').where('shard', '=', 0).where('total', '=', 0).where('weight', '=', 0).execute();
      return moved.rows.length;
    });
}
