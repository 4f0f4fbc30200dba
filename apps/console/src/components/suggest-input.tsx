import { Autocomplete, type AutocompleteProps } from '@mantine/core';
import { useState } from 'react';
import { serverFiltered, useServerMatches, withMore, type SearchSource } from './server-search';

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
