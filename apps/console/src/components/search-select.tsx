import { MultiSelect, Select, type MultiSelectProps, type SelectProps } from '@mantine/core';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { serverFiltered, useServerMatches, withMore, type SearchSource } from './server-search';

export type { SearchSource } from './server-search';

/**
 * The props of a Select or MultiSelect whose options match the debounced search on the server.
 * Mantine keeps the label of a picked option while other searches show other matches; the box of
 * a single select shows the picked option's label, which is no search (the labels found so far
 * tell it apart).
 */
function useServerSearch<T>(source: SearchSource<T>, selected: readonly string[], description: ReactNode) {
  const [search, setSearch] = useState('');
  const labels = useRef(new Map<string, string>());
  const term = search.trim();
  const showsPicked = selected.length === 1 && selected[0] !== undefined && labels.current.get(selected[0]) === term;
  const { found, more } = useServerMatches(source, term, { quiet: showsPicked });
  for (const option of found) labels.current.set(option.value, option.label);
  return {
    data: found,
    description: withMore(description, more),
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
