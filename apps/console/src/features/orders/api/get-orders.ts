import { ZOrder, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { orderListQuery, ZOrderListInput, type OrderListInput } from '../../../lib/order-list';
import { pagedListQueryOptions } from '../../../lib/paging';

/** Spec §7/§9: sort (default orderId ascending), exact filters, archived switch, paging (10). */
export const ZGetOrdersInput = ZOrderListInput;
export type GetOrdersInput = OrderListInput;

const ZOrderPage = ZPage(ZOrder);

export function getOrders(input: GetOrdersInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/order/list', ZOrderPage, { query: orderListQuery(ZGetOrdersInput.parse(input)), signal });
}

export function orderListQueryOptions(input: GetOrdersInput) {
  return pagedListQueryOptions(['orders', 'list', input], (signal) => getOrders(input, signal), 'licensing');
}

export function useOrders(input: GetOrdersInput) {
  return useQuery(orderListQueryOptions(input));
}
