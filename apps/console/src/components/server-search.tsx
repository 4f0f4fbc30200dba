import type { OptionsFilter } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { TPage } from '@manifold/contract';
import { keepPreviousData, useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PickerOption } from '../lib/pickers';

// The server search behind the pickers (search-select.tsx) and the suggesting inputs
// (suggest-input.tsx): apart from both, so that a screen with one does not load the other's
// Mantine components.

/** Where a picker's options come from: a server search for the typed text, and each found item's option. */
export interface SearchSource<T> {
  queryOptions: (search: string) => UseQueryOptions<TPage<T>, Error, TPage<T>, QueryKey>;
  toOption: (item: T) => PickerOption;
  /** Leaves found items out of the options (for example disabled machines). */
  include?: (item: T) => boolean;
}

/** The server already filtered: show its matches as they are. */
export const serverFiltered: OptionsFilter = ({ options }) => options;

/**
 * The server's matches for the typed text (asked 300 ms after the typing stops, `search` blank
 * while `quiet`; not asked until `enabled`) as options, with the message that says when there are
 * more than shown.
 */
export function useServerMatches<T>(source: SearchSource<T>, term: string, { quiet = false, enabled = true } = {}) {
  const { t } = useTranslation();
  const [debounced] = useDebouncedValue(quiet ? '' : term, 300);
  const query = useQuery({ ...source.queryOptions(debounced), placeholderData: keepPreviousData, enabled });
  const page = query.data;
  const found = (page?.data ?? []).filter((item) => source.include?.(item) ?? true).map(source.toOption);
  const more =
    page !== undefined && page.totalNumOfItems > page.data.length ? t('common.moreMatches', { count: page.numberOfItems }) : null;
  return { found, more };
}

export function withMore(description: ReactNode, more: string | null): ReactNode {
  return more === null ? (
    description
  ) : (
    <>
      {description} {more}
    </>
  );
}
