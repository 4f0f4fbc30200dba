import { orderSortFields, ZOrder, ZPage } from '@manifold/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { taggedMeta } from '../../../lib/query-tags';

/** Spec §7/§9: sort (default orderId ascending), exact filters, archived switch, paging (10). */
export const ZGetOrdersInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  sortBy: z.enum(orderSortFields),
  sortOrder: z.enum(['asc', 'desc']),
  filterByDsiId: z.string().optional(),
  filterByCompanyName: z.string().optional(),
  filterByUserId: z.string().optional(),
  filterByArchived: z.boolean(),
});
export type GetOrdersInput = z.infer<typeof ZGetOrdersInput>;

const ZOrderPage = ZPage(ZOrder);

export function getOrders(input: GetOrdersInput, signal?: AbortSignal) {
  const { filterByDsiId, filterByCompanyName, filterByUserId, ...rest } = ZGetOrdersInput.parse(input);
  return apiRequest('GET /ui/order/list', ZOrderPage, {
    query: {
      ...rest,
      filterByDsiId: filterByDsiId || null,
      filterByCompanyName: filterByCompanyName || null,
      filterByUserId: filterByUserId || null,
    },
    signal,
  });
}

export function orderListQueryOptions(input: GetOrdersInput) {
  return queryOptions({
    queryKey: ['orders', 'list', input],
    queryFn: ({ signal }) => getOrders(input, signal),
    placeholderData: keepPreviousData,
    meta: taggedMeta('licensing'),
  });
}

export function useOrders(input: GetOrdersInput) {
  return useQuery(orderListQueryOptions(input));
}
