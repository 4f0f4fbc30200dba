import { type Expression, type Kysely, MysqlAdapter, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';
import type { ListTable } from './migrations/030-list-changes.js';
import { countRows, pageOffset, toPage } from './paging.js';
import type { DB } from './schema.js';

/** Rows between two page anchors: a page costs at most this many skipped index entries. */
export const ANCHOR_EVERY = 512;
/** Lists (filter, sort, viewer) whose anchors are kept, least recently used dropped first. */
const KEPT_LISTS = 256;

/** The one order of a list: a sort value that is never NULL, then a unique id. */
export interface ListOrdering {
  value: Expression<unknown>;
  id: Expression<unknown>;
  direction: 'asc' | 'desc';
}

/** Which list, for the cache: `key` names the filters, sort and viewer; `tables` what changes it. */
export interface ListIdentity {
  key: string;
  tables: readonly ListTable[];
}

interface Anchor {
  v: unknown;
  k: unknown;
}

/**
 * A list as of one generation: its size and, as far as pages were asked for, the sort key of
 * every ANCHOR_EVERY-th row (`points[i]` is the row at position (i + 1) × ANCHOR_EVERY − 1).
 */
interface Anchors {
  generation: string;
  total: number;
  points: Anchor[];
  /** Extensions of `points` run one at a time. */
  extending: Promise<void>;
}

class AnchorCache {
  private readonly lists = new Map<string, Anchors>();
  private readonly counting = new Map<string, Promise<Anchors>>();
  /** MariaDB compares row values without using an index; the others seek with them. */
  private readonly rowValues: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.rowValues = !(db.getExecutor().adapter instanceof MysqlAdapter);
  }

  /** The sum of the change weights of `tables`: it moves with every committed write that changes them. */
  async generation(tables: readonly ListTable[]): Promise<string> {
    const row = await this.db
      .selectFrom('list_changes')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('weight'), sql<number>`0`).as('g'))
      .where('name', 'in', tables)
      .executeTakeFirstOrThrow();
    return String(row.g);
  }

  /**
   * The list's anchors for the current generation: kept ones, or a new entry with the list
   * counted (read after the generation, so never older than the generation it is filed under).
   */
  async anchors<TB extends keyof DB>(list: ListIdentity, base: SelectQueryBuilder<DB, TB, object>): Promise<Anchors> {
    const generation = await this.generation(list.tables);
    const kept = this.lists.get(list.key);
    if (kept?.generation === generation) {
      this.lists.delete(list.key);
      this.lists.set(list.key, kept);
      return kept;
    }
    const flight = `${list.key}\u0000${generation}`;
    let counting = this.counting.get(flight);
    if (!counting) {
      counting = countRows(base)
        .then((total) => ({ generation, total, points: [], extending: Promise.resolve() }))
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
   * Makes sure `anchors.points` reaches `count` points (or the end of the list): each step reads
   * the row ANCHOR_EVERY further on from the last point, skipping through the sort index.
   */
  async extend<TB extends keyof DB>(
    anchors: Anchors,
    count: number,
    base: SelectQueryBuilder<DB, TB, object>,
    ordering: ListOrdering,
  ): Promise<void> {
    const step = async () => {
      while (anchors.points.length < count) {
        const last = anchors.points.at(-1);
        const from = last ? base.where(this.after(ordering, last)) : base;
        const next = await from
          .select([sql`${ordering.value}`.as('v'), sql`${ordering.id}`.as('k')])
          .orderBy(ordering.value, ordering.direction)
          .orderBy(ordering.id, ordering.direction)
          .limit(1)
          .offset(ANCHOR_EVERY - 1)
          .executeTakeFirst();
        if (!next) return;
        anchors.points.push(next as Anchor);
      }
    };
    anchors.extending = anchors.extending.then(step, step);
    await anchors.extending;
  }

  /** Rows after `anchor` in `ordering`, written so the database seeks in the sort index. */
  after(ordering: ListOrdering, anchor: Anchor): Expression<SqlBool> {
    const { value, id } = ordering;
    const op = sql.raw(ordering.direction === 'asc' ? '>' : '<');
    return this.rowValues
      ? sql<SqlBool>`((${value}, ${id}) ${op} (${anchor.v}, ${anchor.k}))`
      : sql<SqlBool>`(${value} ${op} ${anchor.v} or (${value} = ${anchor.v} and ${id} ${op} ${anchor.k}))`;
  }
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
 * every ANCHOR_EVERY-th row are kept per list (filters, sort, viewer: `list.key`) and reused
 * while no committed write changed the list's tables (`list_changes`, one small indexed sum per
 * call); a page then starts from the anchor before it and skips fewer than ANCHOR_EVERY rows. The
 * total is exact. After a change, the first call counts the list again, and the first call for a
 * deep page steps through the sort index to it once, laying the anchors on the way.
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
  const anchors = await cache.anchors(list, base);
  const offset = pageOffset(page);
  let found: O[] = [];
  if (offset < anchors.total) {
    const wanted = Math.floor(offset / ANCHOR_EVERY);
    if (anchors.points.length < wanted) await cache.extend(anchors, wanted, base, ordering);
    const index = Math.min(wanted, anchors.points.length);
    const from = index === 0 ? base : base.where(cache.after(ordering, anchors.points[index - 1]!));
    found = await rows(from)
      .orderBy(ordering.value, ordering.direction)
      .orderBy(ordering.id, ordering.direction)
      .limit(page.numberOfItems)
      .offset(offset - index * ANCHOR_EVERY)
      .execute();
  }
  return toPage(page, anchors.total, await map(found));
}

/**
 * Folds the change rows of each list into one (same sum, so no anchor is renewed for it): the
 * rows folded are exactly the ones deleted (`returning`), whatever commits meanwhile.
 */
export async function compactListChanges(db: Kysely<DB>, tables: readonly ListTable[]): Promise<number> {
  let folded = 0;
  for (const name of tables) {
    await db.transaction().execute(async (trx) => {
      const last = await trx
        .selectFrom('list_changes')
        .select((eb) => [eb.fn.max('id').as('id'), eb.fn.countAll<number | string>().as('n')])
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      if (last.id === null || Number(last.n) < 2) return;
      const deleted = await sql<{
        weight: number | string;
      }>`delete from list_changes where name = ${name} and id <= ${last.id} returning weight`.execute(trx);
      const weight = deleted.rows.reduce((sum, row) => sum + BigInt(row.weight), 0n);
      if (deleted.rows.length > 0) await trx.insertInto('list_changes').values({ name, weight: weight.toString() }).execute();
      folded += deleted.rows.length;
    });
  }
  return folded;
}
