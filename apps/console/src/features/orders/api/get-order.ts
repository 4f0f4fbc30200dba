import { ZOrderDetail } from '@manifold/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { taggedMeta } from '../../../lib/query-tags';

/** `page`: the page of the order's authorizations to show (10 a page). */
export function getOrder(orderId: string, page: number, signal?: AbortSignal) {
  return apiRequest('GET /ui/order/fetch', ZOrderDetail, { query: { orderId, pageNum: page }, signal });
}

export function orderQueryOptions(orderId: string, page = 1) {
  return queryOptions({
    queryKey: ['orders', 'detail', orderId, page],
    queryFn: ({ signal }) => getOrder(orderId, page, signal),
    placeholderData: keepPreviousData,
    meta: taggedMeta('licensing'),
  });
}

export function useOrder(orderId: string, page = 1) {
  return useQuery(orderQueryOptions(orderId, page));
}
