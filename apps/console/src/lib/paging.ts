import { keepPreviousData, queryOptions, type QueryKey } from '@tanstack/react-query';
import { taggedMeta, type QueryTag } from './query-tags';

/** The number of pages of a page of a list (at least one, also while it loads). */
export function pageCount(page: { totalNumOfPages: number } | undefined): number {
  return Math.max(1, page?.totalNumOfPages ?? 1);
}

/**
 * The query of a paged list: the previous page stays shown while the next one loads. The key is
 * the feature's own; a tag lets changes elsewhere refresh it (`query-tags.ts`).
 */
export function pagedListQueryOptions<TPage, TKey extends QueryKey>(
  queryKey: TKey,
  fetchPage: (signal: AbortSignal) => Promise<TPage>,
  tag?: QueryTag,
) {
  return queryOptions({
    queryKey,
    queryFn: ({ signal }) => fetchPage(signal),
    placeholderData: keepPreviousData,
    ...(tag ? { meta: taggedMeta(tag) } : {}),
  });
}
