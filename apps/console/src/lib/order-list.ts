import { orderSortFields } from '@manifold/contract';
import { z } from 'zod';

/**
 * Sorting, filters and paging of the order list (spec §7/§9), which the authorization list
 * shares: both keep them in the address.
 */
export const ZOrderListInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  sortBy: z.enum(orderSortFields),
  sortOrder: z.enum(['asc', 'desc']),
  filterByDsiId: z.string().optional(),
  filterByCompanyName: z.string().optional(),
  filterByUserId: z.string().optional(),
  filterByArchived: z.boolean(),
});
export type OrderListInput = z.infer<typeof ZOrderListInput>;
export type OrderSortField = (typeof orderSortFields)[number];

/** What the list shows when the address says nothing about it. */
export type OrderListDefaults = Pick<OrderListInput, 'pageNum' | 'numberOfItems' | 'sortBy' | 'sortOrder' | 'filterByArchived'>;

function positive(value: string | null, fallback: number, max: number): number {
  const number = value === null ? Number.NaN : Number(value);
  return Number.isInteger(number) && number >= 1 && number <= max ? number : fallback;
}

/**
 * The list's state from the address's query string: paging, sorting and the archived switch,
 * anything unknown falling back to the defaults, and the given text filters that hold more than
 * blanks (trimmed).
 */
export function orderListInputFrom<TFilter extends string>(
  params: URLSearchParams,
  defaults: OrderListDefaults,
  textFilters: readonly TFilter[],
): OrderListDefaults & Partial<Record<TFilter, string>> {
  const sortBy = params.get('sortBy');
  const sortOrder = params.get('sortOrder');
  const filters: Partial<Record<TFilter, string>> = {};
  for (const name of textFilters) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return {
    pageNum: positive(params.get('pageNum'), defaults.pageNum, 1_000_000_000),
    numberOfItems: positive(params.get('numberOfItems'), defaults.numberOfItems, 500),
    sortBy: orderSortFields.find((field) => field === sortBy) ?? defaults.sortBy,
    sortOrder: sortOrder === 'asc' || sortOrder === 'desc' ? sortOrder : defaults.sortOrder,
    filterByArchived: params.get('filterByArchived') === 'true',
    ...filters,
  };
}

/** The query string of a list state, leaving out blanks and what equals the defaults. */
export function orderListSearch(input: object, defaults: OrderListDefaults): URLSearchParams {
  const params = new URLSearchParams();
  const defaultOf = new Map<string, unknown>(Object.entries(defaults));
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === '') continue;
    if (value === defaultOf.get(key)) continue;
    params.set(key, String(value));
  }
  return params;
}

/** The query of a list request: blank text filters are left out. */
export function orderListQuery(input: Record<string, string | number | boolean | undefined>) {
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, value === '' ? null : value]));
}

/**
 * Whether the list is narrowed: a text filter holds something, or the archived orders are asked
 * for. An empty answer is then "No … match the filters", not "No … yet".
 */
export function orderListNarrowed(
  input: OrderListDefaults & Partial<Record<string, unknown>>,
  textFilters: readonly string[],
): boolean {
  return input.filterByArchived || textFilters.some((name) => typeof input[name] === 'string' && input[name] !== '');
}
