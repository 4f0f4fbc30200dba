import type { QueryClient } from '@tanstack/react-query';

/**
 * Query keys belong to the feature that builds them. When a change made in one place shows in
 * another feature's queries, those queries carry a tag in their `meta` and the change refreshes
 * every query with that tag, without building the other feature's keys.
 * - `licensing`: orders and authorizations (remaining quantities, states), changed by every
 *   licensing action;
 * - `users`: user profiles (lists, pickers), changed when a profile is saved.
 */
export type QueryTag = 'licensing' | 'users';

export function taggedMeta(tag: QueryTag) {
  return { tag };
}

export function invalidateTagged(queryClient: QueryClient, tag: QueryTag) {
  return queryClient.invalidateQueries({ predicate: (query) => query.meta?.tag === tag });
}
