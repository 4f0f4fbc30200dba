import { orderSortFields } from '@manifold/contract';
import type { GetOrdersInput } from '../api/get-orders';

export type OrderSortField = (typeof orderSortFields)[number];

/** Spec §9 list defaults: first page of 10, orderId ascending, archived hidden. */
export const orderListDefaults: GetOrdersInput = {
  pageNum: 1,
  numberOfItems: 10,
  sortBy: 'orderId',
  sortOrder: 'asc',
  filterByArchived: false,
};

function positive(value: string | null, fallback: number, max: number): number {
  const number = value === null ? Number.NaN : Number(value);
  return Number.isInteger(number) && number >= 1 && number <= max ? number : fallback;
}

/** The order list's state from the address's query string; anything unknown falls back to the defaults. */
export function orderListInputFrom(params: URLSearchParams): GetOrdersInput {
  const sortBy = params.get('sortBy');
  const sortOrder = params.get('sortOrder');
  const text = (name: string) => {
    const value = params.get(name)?.trim();
    return value ? value : undefined;
  };
  return {
    pageNum: positive(params.get('pageNum'), orderListDefaults.pageNum, 1_000_000_000),
    numberOfItems: positive(params.get('numberOfItems'), orderListDefaults.numberOfItems, 500),
    sortBy: orderSortFields.find((field) => field === sortBy) ?? orderListDefaults.sortBy,
    sortOrder: sortOrder === 'desc' ? 'desc' : 'asc',
    filterByDsiId: text('filterByDsiId'),
    filterByCompanyName: text('filterByCompanyName'),
    filterByUserId: text('filterByUserId'),
    filterByArchived: params.get('filterByArchived') === 'true',
  };
}

/** The query string of a list state, leaving out what equals the defaults. */
export function orderListSearch(input: GetOrdersInput): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === '') continue;
    if (value === orderListDefaults[key as keyof GetOrdersInput]) continue;
    params.set(key, String(value));
  }
  return params;
}
