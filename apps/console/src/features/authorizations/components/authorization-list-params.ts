import { orderSortFields } from '@manifold/contract';
import type { GetAuthorizationsInput } from '../api/get-authorizations';

export const authorizationListDefaults: GetAuthorizationsInput = {
  pageNum: 1,
  numberOfItems: 10,
  sortBy: 'dateCreated',
  sortOrder: 'desc',
  filterByArchived: false,
};

const textFilters = ['filterByDsiId', 'filterByCompanyName', 'filterByUserId', 'orderId', 'authorizationId'] as const;
export type AuthorizationTextFilter = (typeof textFilters)[number];
export const authorizationTextFilters: readonly AuthorizationTextFilter[] = textFilters;

function positive(value: string | null, fallback: number, max: number): number {
  const number = value === null ? Number.NaN : Number(value);
  return Number.isInteger(number) && number >= 1 && number <= max ? number : fallback;
}

/** The list's state from the query string (newest first unless the address says otherwise). */
export function authorizationListInputFrom(params: URLSearchParams): GetAuthorizationsInput {
  const sortBy = params.get('sortBy');
  const sortOrder = params.get('sortOrder');
  const input: GetAuthorizationsInput = {
    pageNum: positive(params.get('pageNum'), 1, 1_000_000_000),
    numberOfItems: positive(params.get('numberOfItems'), 10, 500),
    sortBy: orderSortFields.find((field) => field === sortBy) ?? authorizationListDefaults.sortBy,
    sortOrder: sortOrder === 'asc' || sortOrder === 'desc' ? sortOrder : authorizationListDefaults.sortOrder,
    filterByArchived: params.get('filterByArchived') === 'true',
  };
  for (const name of textFilters) {
    const value = params.get(name)?.trim();
    if (value) input[name] = value;
  }
  return input;
}

export function authorizationListSearch(input: GetAuthorizationsInput): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === '') continue;
    if (value === authorizationListDefaults[key as keyof GetAuthorizationsInput]) continue;
    params.set(key, String(value));
  }
  return params;
}
