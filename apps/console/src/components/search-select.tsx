import {
  Autocomplete,
  MultiSelect,
  Select,
  type AutocompleteProps,
  type MultiSelectProps,
  type OptionsFilter,
  type SelectProps,
} from '@mantine/core';
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
 * The server's matches for the typed text (asked 300 ms after the typing stops, `search` blank
 * while `quiet`; not asked until `enabled`) as options, with the message that says when there are
 * more than shown.
 */
function useServerMatches<T>(source: SearchSource<T>, term: string, { quiet = false, enabled = true } = {}) {
  const { t } = useTranslation();
  const [debounced] = useDebouncedValue(quiet ? '' : term, 300);
  const query = useQuery({ ...source.queryOptions(debounced), placeholderData: keepPreviousData, enabled });
  const page = query.data;
  const found = (page?.data ?? []).filter((item) => source.include?.(item) ?? true).map(source.toOption);
  const more =
    page !== undefined && page.totalNumOfItems > page.data.length ? t('common.moreMatches', { count: page.numberOfItems }) : null;
  return { found, more };
}

function withMore(description: ReactNode, more: string | null): ReactNode {
  return more === null ? (
    description
  ) : (
    <>
      {description} {more}
    </>
  );
}

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

type Suggested = 'data' | 'filter' | 'renderOption' | 'value' | 'onChange';

/**
 * A text input that suggests values as the user types: the server's matches for the text, each
 * shown by its label and entered as its value (a design's or machine's id), while any other text
 * stays allowed (an id the server has no entry for, such as a design received from upstream).
 */
export function SuggestInput<T>({
  source,
  value,
  onChange,
  description,
  ...props
}: Omit<AutocompleteProps, Suggested> & { source: SearchSource<T>; value: string; onChange: (value: string) => void }) {
  // asked once the input is first focused: a list screen's filters cost no call until used
  const [used, setUsed] = useState(false);
  const { found, more } = useServerMatches(source, value.trim(), { enabled: used });
  const labels = new Map(found.map((option) => [option.value, option.label]));
  return (
    <Autocomplete
      comboboxProps={{ withinPortal: true }}
      {...props}
      description={withMore(description, more)}
      value={value}
      onChange={onChange}
      onFocus={(event) => {
        setUsed(true);
        props.onFocus?.(event);
      }}
      data={[...labels.keys()]}
      filter={serverFiltered}
      renderOption={({ option }) => labels.get(option.value) ?? option.value}
    />
  );
}
