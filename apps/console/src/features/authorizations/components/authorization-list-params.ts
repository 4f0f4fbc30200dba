import { orderListInputFrom, orderListSearch, type OrderListDefaults } from '../../../lib/order-list';
import type { GetAuthorizationsInput } from '../api/get-authorizations';

export const authorizationListDefaults: OrderListDefaults = {
  pageNum: 1,
  numberOfItems: 10,
  sortBy: 'dateCreated',
  sortOrder: 'desc',
  filterByArchived: false,
};

const textFilters = ['filterByDsiId', 'filterByCompanyName', 'filterByUserId', 'orderId', 'authorizationId'] as const;
export type AuthorizationTextFilter = (typeof textFilters)[number];
export const authorizationTextFilters: readonly AuthorizationTextFilter[] = textFilters;

/** The list's state from the query string (newest first unless the address says otherwise). */
export function authorizationListInputFrom(params: URLSearchParams): GetAuthorizationsInput {
  return orderListInputFrom(params, authorizationListDefaults, textFilters);
}

export function authorizationListSearch(input: GetAuthorizationsInput): URLSearchParams {
  return orderListSearch(input, authorizationListDefaults);
}
