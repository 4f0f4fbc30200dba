import { ZOrderDetail } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { taggedMeta } from '../../../lib/query-tags';

export function getOrder(orderId: string, signal?: AbortSignal) {
  return apiRequest('GET /ui/order/fetch', ZOrderDetail, { query: { orderId }, signal });
}

export function orderQueryOptions(orderId: string) {
  return queryOptions({
    queryKey: ['orders', 'detail', orderId],
    queryFn: ({ signal }) => getOrder(orderId, signal),
    meta: taggedMeta('licensing'),
  });
}

export function useOrder(orderId: string) {
  return useQuery(orderQueryOptions(orderId));
}
