import { MultiSelect, Select, type MultiSelectProps, type OptionsFilter, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { TPage } from '@manifold/contract';
import { keepPreviousData, useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { PickerOption } from '../lib/pickers';

/** Where a picker's options come from: a server search for the typed text, and each found item's option. */
export interface SearchSource<T> {
  queryOptions: (search: string) => UseQueryOptions<TPage<T>, Error, TPage<T>, QueryKey>;
  toOption: (item: T) => PickerOption;
  /** Leaves found items out of the options (for example disabled machines). */
  include?: (item: T) => boolean;
}

/** The server already filtered: show its matches as they are. */
const serverFiltered: OptionsFilter = ({ options }) => options;

/**
 * The props of a Select or MultiSelect whose options match the debounced search on the server.
 * Mantine keeps the label of a picked option while other searches show other matches; the box of
 * a single select shows the picked option's label, which is no search (the labels found so far
 * tell it apart).
 */
function useServerSearch<T>(source: SearchSource<T>, selected: readonly string[], description: ReactNode) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const labels = useRef(new Map<string, string>());
  const term = search.trim();
  const showsPicked = selected.length === 1 && selected[0] !== undefined && labels.current.get(selected[0]) === term;
  const [debounced] = useDebouncedValue(showsPicked ? '' : term, 300);
  const query = useQuery({ ...source.queryOptions(debounced), placeholderData: keepPreviousData });
  const page = query.data;
  const found = (page?.data ?? []).filter((item) => source.include?.(item) ?? true).map(source.toOption);
  for (const option of found) labels.current.set(option.value, option.label);
  const more =
    page !== undefined && page.totalNumOfItems > page.data.length ? t('common.moreMatches', { count: page.numberOfItems }) : null;
  return {
    data: found,
    description:
      more === null ? (
        description
      ) : (
        <>
          {description} {more}
        </>
      ),
    searchable: true,
    searchValue: search,
    onSearchChange: setSearch,
    filter: serverFiltered,
  };
}

type Searchable = 'data' | 'filter' | 'searchable' | 'searchValue' | 'onSearchChange';

/** A searchable Select whose options the server finds as the user types. */
export function SearchSelect<T>({ source, ...props }: Omit<SelectProps, Searchable> & { source: SearchSource<T> }) {
  const { t } = useTranslation();
  const search = useServerSearch(source, props.value ? [props.value] : [], props.description);
  return <Select nothingFoundMessage={t('common.nothingFound')} comboboxProps={{ withinPortal: true }} {...props} {...search} />;
}

/** A searchable MultiSelect whose options the server finds as the user types. */
export function SearchMultiSelect<T>({ source, ...props }: Omit<MultiSelectProps, Searchable> & { source: SearchSource<T> }) {
  const { t } = useTranslation();
  const search = useServerSearch(source, props.value ?? [], props.description);
  return (
    <MultiSelect nothingFoundMessage={t('common.nothingFound')} comboboxProps={{ withinPortal: true }} {...props} {...search} />
  );
}
