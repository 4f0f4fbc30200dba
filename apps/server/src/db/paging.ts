import type { SelectQueryBuilder } from 'kysely';
import type { TPage, TPageQuery } from '@manifold/contract';

/** Offset of a page that counts from 1. */
export function pageOffset(page: TPageQuery): number {
  return (page.pageNum - 1) * page.numberOfItems;
}

export function toPage<T>(page: TPageQuery, total: number | string | bigint, data: T[]): TPage<T> {
  const totalNumOfItems = Number(total);
  return {
    data,
    pageNum: page.pageNum,
    numberOfItems: page.numberOfItems,
    totalNumOfPages: Math.ceil(totalNumOfItems / page.numberOfItems),
    totalNumOfItems,
  };
}

/** Counts the rows `base` filters (before any selection or ordering). */
export async function countRows<DB, TB extends keyof DB>(base: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  const row = await base
    .select((eb) => eb.fn.countAll().as('n'))
    .$castTo<{ n: number | string | bigint }>()
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The one way a list is paged: the rows `base` filters are counted, then `rows` (selection and
 * ordering over `base`) is read for the asked page only, and the rows mapped to their API shape
 * (all at once, so a mapping may read what belongs to the page's rows in one query).
 */
export async function paginate<DB, TB extends keyof DB, O, T>(
  base: SelectQueryBuilder<DB, TB, object>,
  page: TPageQuery,
  rows: (base: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  map: (rows: O[]) => T[] | Promise<T[]>,
): Promise<TPage<T>> {
  const total = await countRows(base);
  const found = await rows(base).limit(page.numberOfItems).offset(pageOffset(page)).execute();
  return toPage(page, total, await map(found));
}
