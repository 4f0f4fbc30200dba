import { useEffect, useRef, useState } from 'react';
import { useLocation, type Location } from 'react-router';
import { useLatestSearchParams } from './use-latest-search-params';

/** The largest page a list call takes (the contract's `pageNum`). */
const maxPage = 1_000_000_000;
/** How long the typing of a search pauses before the list asks for it. */
const searchPause = 300;

/**
 * The page an address's value names: a whole number from 1, no more than a list call takes;
 * anything else (`abc`, `-1`, `0`, `1.5`, nothing) the first page.
 */
export function pageFrom(value: string | null): number {
  if (value === null || !/^\d+$/.test(value)) return 1;
  return Math.min(Math.max(Number(value), 1), maxPage);
}

/** The entry of the history a search typed belongs to, and the search typed there and not yet written. */
interface UnwrittenSearch {
  entry: string;
  path: string;
  address: string;
  text: string;
}

const unwrittenKey = (searchParam: string) => `manifold.unwrittenSearch.${searchParam}`;

/** Keeps a search typed and not yet in the address (the page unloading, the list left) for its entry. */
function keepUnwritten(searchParam: string, location: Location, text: string): void {
  const kept: UnwrittenSearch = { entry: location.key, path: location.pathname, address: location.search, text };
  try {
    sessionStorage.setItem(unwrittenKey(searchParam), JSON.stringify(kept));
  } catch {
    // no storage (a private window that refuses it): the typing is lost as before
  }
}

function forgetUnwritten(searchParam: string): void {
  try {
    sessionStorage.removeItem(unwrittenKey(searchParam));
  } catch {
    // nothing was kept
  }
}

/**
 * The search `value` is in the address: the typing that was `unwritten` until then is written. It
 * stays unwritten until the address shows it, not only until it is sent there: a page unloading
 * between the two (a reload under load) keeps it for its entry instead of losing it.
 */
function settled(unwritten: { current: string | undefined }, searchParam: string, value: string): void {
  if (unwritten.current !== value) return;
  unwritten.current = undefined;
  forgetUnwritten(searchParam);
}

/** The search kept for this entry of the history, taken out of the storage; undefined when none. */
function takeUnwritten(searchParam: string, location: Location): string | undefined {
  let kept: Partial<UnwrittenSearch> | null = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(unwrittenKey(searchParam)) ?? 'null') as Partial<UnwrittenSearch> | null;
  } catch {
    return undefined;
  }
  if (kept?.entry !== location.key || kept.path !== location.pathname || kept.address !== location.search) return undefined;
  forgetUnwritten(searchParam);
  return typeof kept.text === 'string' ? kept.text : undefined;
}

/** Whether the entry of the history was made by typing in this search box (`setSearch`). */
function typedIn(location: Location, searchParam: string): boolean {
  const state: unknown = location.state;
  return typeof state === 'object' && state !== null && (state as { typedSearch?: unknown }).typedSearch === searchParam;
}

export interface PagedSearchOptions<TFilter extends string = never> {
  /** The address's name of the page (`page`); lists sharing a screen each have their own. */
  pageParam?: string;
  /** The address's name of the search text (`search`). */
  searchParam?: string;
  /** Filters of the list kept in the address under their own names. */
  filters?: readonly TFilter[];
  /** The pages of other lists of the screen that the search and the filters narrow too. */
  alsoResets?: readonly string[];
}

export interface PagedSearch<TFilter extends string = never> {
  /** The page the address names (`pageFrom`). */
  page: number;
  /** Another page: a new entry of the history, so back returns to the page before. */
  setPage: (page: number, options?: { replace?: boolean }) => void;
  /** The text of the search box. */
  search: string;
  /**
   * The search box typed in: the address follows once the typing pauses, at the first page, as a
   * new entry of the history (back returns to the page and search before) that further typing
   * replaces.
   */
  setSearch: (text: string) => void;
  /** The search the list asks for: the address's, trimmed; undefined when blank. */
  query: string | undefined;
  /** The filters of the address, trimmed; blank ones left out. */
  filters: Partial<Record<TFilter, string>>;
  /**
   * A search or a filter narrows the list (the address has one): an empty answer is then "No …
   * match the filters", not "No … yet" (`DataTable`'s `empty`).
   */
  narrowed: boolean;
  /** Filters changed (undefined or blank: cleared): a new entry of the history, at the first page. */
  setFilters: (change: Partial<Record<TFilter, string | undefined>>) => void;
}

/**
 * The page, the search text and the filters of a list, kept in the address (`?page=3&search=abc`)
 * so that a reload, back after opening a row, and a shared link show the same page. Another page
 * or filter is a new entry of the history; the search follows the typing once the typing pauses,
 * back at the first page: the first search written from an entry is a new entry, and the typing
 * that follows replaces it (the entry's state says it was typed). A search typed and not yet
 * written when the page unloads (a reload) or the list is left is kept for its entry
 * (`sessionStorage`), and back in it the list takes it up again. The rest of the address is left
 * as it is. A page past the list's end is put right by `usePageInRange`.
 */
export function usePagedSearch<TFilter extends string = never>({
  pageParam = 'page',
  searchParam = 'search',
  filters: filterNames = [],
  alsoResets = [],
}: PagedSearchOptions<TFilter> = {}): PagedSearch<TFilter> {
  const [params, setParams] = useLatestSearchParams();
  const location = useLocation();
  const shown = useRef(location);
  shown.current = location;
  const addressSearch = params.get(searchParam) ?? '';
  const [text, setText] = useState(addressSearch);
  // the search texts written to the address and not seen there yet, oldest first, and whether
  // they were written as a new entry or in place of the last
  const written = useRef<string[]>([]);
  const writing = useRef<{ replace: boolean }>({ replace: false });
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  // the text typed and not yet written to the address
  const unwritten = useRef<string | undefined>(undefined);

  useEffect(() => {
    const at = written.current.indexOf(addressSearch);
    if (at !== -1) {
      // one this list wrote (the box may be ahead of it by now): those before it are done too
      written.current = written.current.slice(at + 1);
      settled(unwritten, searchParam, addressSearch);
      return;
    }
    // another navigation (back, forward, a link): its search goes in the box, and typing not yet
    // written is dropped
    written.current = [];
    clearTimeout(typing.current);
    unwritten.current = undefined;
    setText(addressSearch);
  }, [addressSearch, searchParam]);

  const write = (value: string) => {
    // while an earlier write is on its way, the same way again (the router runs the last only)
    const replace = written.current.length > 0 ? writing.current.replace : typedIn(shown.current, searchParam);
    setParams(
      (latest) => {
        if ((latest.get(searchParam) ?? '') === value) {
          settled(unwritten, searchParam, value);
          return latest;
        }
        written.current.push(value);
        writing.current = { replace };
        const next = firstPage(new URLSearchParams(latest));
        if (value) next.set(searchParam, value);
        else next.delete(searchParam);
        return next;
      },
      { replace, state: { typedSearch: searchParam } },
    );
  };

  const setSearch = (value: string) => {
    setText(value);
    unwritten.current = value;
    clearTimeout(typing.current);
    typing.current = setTimeout(() => write(value), searchPause);
  };
  const typeIn = useRef(setSearch);
  typeIn.current = setSearch;

  // typing cut short by leaving the screen changes nothing (the next screen's address least of
  // all): it is kept for the entry left, as it is when the page unloads (a reload)
  useEffect(() => {
    const keep = () => {
      if (unwritten.current !== undefined) keepUnwritten(searchParam, shown.current, unwritten.current);
    };
    window.addEventListener('pagehide', keep);
    const restored = takeUnwritten(searchParam, shown.current);
    if (restored !== undefined) typeIn.current(restored);
    return () => {
      window.removeEventListener('pagehide', keep);
      clearTimeout(typing.current);
      keep();
    };
  }, [searchParam]);

  const firstPage = (next: URLSearchParams) => {
    for (const name of [pageParam, ...alsoResets]) next.delete(name);
    return next;
  };

  const filters: Partial<Record<TFilter, string>> = {};
  for (const name of filterNames) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }

  return {
    page: pageFrom(params.get(pageParam)),
    setPage: (page, options) =>
      setParams((latest) => {
        const next = new URLSearchParams(latest);
        if (page > 1) next.set(pageParam, String(page));
        else next.delete(pageParam);
        return next;
      }, options),
    search: text,
    setSearch,
    query: addressSearch.trim() || undefined,
    filters,
    narrowed: addressSearch.trim() !== '' || Object.keys(filters).length > 0,
    setFilters: (change) =>
      setParams((latest) => {
        const next = firstPage(new URLSearchParams(latest));
        for (const [name, value] of Object.entries<string | undefined>(change)) {
          if (value?.trim()) next.set(name, value.trim());
          else next.delete(name);
        }
        return next;
      }),
  };
}

/**
 * Puts right a page past the end of the list (`?page=99999`, or the last row of the last page
 * deleted): once the list answered for the page asked (not while it still shows the answer to
 * another), the address is replaced by its last page, the first when it has no rows.
 */
export function usePageInRange(
  list: Pick<PagedSearch<string>, 'page' | 'setPage'>,
  result: { data?: { totalNumOfPages: number } | undefined; isPlaceholderData: boolean },
): void {
  const last = result.data && !result.isPlaceholderData ? Math.max(1, result.data.totalNumOfPages) : undefined;
  const outside = last !== undefined && list.page > last;
  // asked once per page and end: renders until the address changes ask nothing more
  const asked = useRef<string | null>(null);
  const { page, setPage } = list;
  useEffect(() => {
    if (!outside || last === undefined) {
      asked.current = null;
      return;
    }
    const key = `${page}/${last}`;
    if (asked.current === key) return;
    asked.current = key;
    setPage(last, { replace: true });
  }, [outside, page, last, setPage]);
}
