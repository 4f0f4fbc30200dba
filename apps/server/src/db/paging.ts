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
