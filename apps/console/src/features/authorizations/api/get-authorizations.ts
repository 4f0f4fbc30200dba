import { orderSortFields, ZAuthorization, ZPage } from '@manifold/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { taggedMeta } from '../../../lib/query-tags';

/** The order list's sorting, filters and paging plus orderId and authorizationId (spec §7). */
export const ZGetAuthorizationsInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  sortBy: z.enum(orderSortFields),
  sortOrder: z.enum(['asc', 'desc']),
  filterByDsiId: z.string().optional(),
  filterByCompanyName: z.string().optional(),
  filterByUserId: z.string().optional(),
  filterByArchived: z.boolean(),
  orderId: z.string().optional(),
  authorizationId: z.string().optional(),
});
export type GetAuthorizationsInput = z.infer<typeof ZGetAuthorizationsInput>;

const ZAuthorizationPage = ZPage(ZAuthorization);

export function getAuthorizations(input: GetAuthorizationsInput, signal?: AbortSignal) {
  const parsed = ZGetAuthorizationsInput.parse(input);
  const query = Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, value === '' ? null : value]));
  return apiRequest('GET /ui/authorization/list', ZAuthorizationPage, { query, signal });
}

export function authorizationListQueryOptions(input: GetAuthorizationsInput) {
  return queryOptions({
    queryKey: ['authorizations', 'list', input],
    queryFn: ({ signal }) => getAuthorizations(input, signal),
    placeholderData: keepPreviousData,
    meta: taggedMeta('licensing'),
  });
}

export function useAuthorizations(input: GetAuthorizationsInput) {
  return useQuery(authorizationListQueryOptions(input));
}
