import { wrongDays } from '../../../components/filter-errors';
import type { NavigateOptions } from 'react-router';
import { useLatestSearchParams } from '../../../hooks/use-latest-search-params';

function positive(value: string | null, fallback: number, max: number): number {
  const number = value === null ? Number.NaN : Number(value);
  return Number.isInteger(number) && number >= 1 && number <= max ? number : fallback;
}

export type ListState<TFilter extends string> = { pageNum: number; numberOfItems: number } & Partial<Record<TFilter, string>>;

/** The filters of the address's query string, trimmed, blank ones left out. */
function filtersFrom<TFilter extends string>(
  params: URLSearchParams,
  filters: readonly TFilter[],
): Partial<Record<TFilter, string>> {
  const state: Partial<Record<TFilter, string>> = {};
  for (const name of filters) {
    const value = params.get(name)?.trim();
    if (value) state[name] = value;
  }
  return state;
}

/**
 * A list's paging and filters from the address's query string: blank filters left out, and the
 * day filters among them (`days`) that are no day of the calendar (`wrongDays`), which are not sent.
 */
export function listStateFrom<TFilter extends string>(
  params: URLSearchParams,
  filters: readonly TFilter[],
  days: readonly TFilter[] = [],
): ListState<TFilter> {
  const state = filtersFrom(params, filters);
  for (const name of wrongDays(state, days)) delete state[name];
  return {
    pageNum: positive(params.get('pageNum'), 1, 1_000_000_000),
    numberOfItems: positive(params.get('numberOfItems'), 10, 500),
    ...state,
  };
}

/** The query string of a list state: blanks and the defaults (page 1, 10 a page) left out. */
export function listSearch(state: Record<string, string | number | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (value === undefined || value === '') continue;
    if ((key === 'pageNum' && value === 1) || (key === 'numberOfItems' && value === 10)) continue;
    params.set(key, String(value));
  }
  return params;
}

/**
 * A list kept in the address: its filters, its state, the day filters (`days`) the address gives
 * a day the calendar lacks (`wrongDays`, left out of the state), `update` (a change of filters or
 * page size starts at page 1) and `page` (another page, a new entry of the history unless
 * `options` say `replace`); `narrowed` when a filter is applied.
 */
export function useListParams<TFilter extends string>(
  filters: readonly TFilter[],
  { days = [] }: { days?: readonly TFilter[] } = {},
) {
  const [params, setParams] = useLatestSearchParams();
  const state = listStateFrom(params, filters, days);
  return {
    filters,
    state,
    /** A filter narrows the list: an empty answer is "No … match the filters", not "No … yet". */
    narrowed: filters.some((name) => state[name] !== undefined),
    wrongDays: wrongDays(filtersFrom(params, filters), days),
    update: (change: { [name: string]: string | number | undefined }) =>
      setParams((latest) => listSearch({ ...listStateFrom(latest, filters, days), pageNum: 1, ...change })),
    page: (pageNum: number, options?: NavigateOptions) =>
      setParams((latest) => listSearch({ ...listStateFrom(latest, filters, days), pageNum }), options),
  };
}
