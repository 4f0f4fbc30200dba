import {
  orderListInputFrom as listInputFrom,
  orderListSearch as listSearch,
  type OrderListDefaults,
} from '../../../lib/order-list';
import type { GetOrdersInput } from '../api/get-orders';

export type { OrderSortField } from '../../../lib/order-list';

/** Spec §9 list defaults: first page of 10, orderId ascending, archived hidden. */
export const orderListDefaults: OrderListDefaults = {
  pageNum: 1,
  numberOfItems: 10,
  sortBy: 'orderId',
  sortOrder: 'asc',
  filterByArchived: false,
};

export const orderTextFilters = ['filterByCompanyName', 'filterByUserId', 'filterByDsiId'] as const;

/** The order list's state from the address's query string; anything unknown falls back to the defaults. */
export function orderListInputFrom(params: URLSearchParams): GetOrdersInput {
  return listInputFrom(params, orderListDefaults, orderTextFilters);
}

/** The query string of a list state, leaving out what equals the defaults. */
export function orderListSearch(input: GetOrdersInput): URLSearchParams {
  return listSearch(input, orderListDefaults);
}
