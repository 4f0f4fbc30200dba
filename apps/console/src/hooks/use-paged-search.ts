import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';

/**
 * The page and the search text of a list searched on the server: a new search starts at the first
 * page, and `query` (trimmed, undefined when blank) follows the typing after 300 ms.
 */
export function usePagedSearch() {
  const [page, setPage] = useState(1);
  const [search, setSearchText] = useState('');
  const [debounced] = useDebouncedValue(search, 300);
  const setSearch = (value: string) => {
    setSearchText(value);
    setPage(1);
  };
  return { page, setPage, search, setSearch, query: debounced.trim() || undefined };
}
