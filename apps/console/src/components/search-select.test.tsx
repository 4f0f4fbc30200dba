import type { TPage } from '@manifold/contract';
import { QueryClient, QueryClientProvider, queryOptions, type QueryKey } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { useState, type ReactElement } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/render';
import { SearchMultiSelect, SearchSelect, type SearchSource } from './search-select';
import { SuggestInput } from './suggest-input';

interface Machine {
  id: string;
  name: string;
  disabled?: boolean;
}

const machines: Machine[] = [
  { id: 'm1', name: 'Alpha' },
  { id: 'm2', name: 'Beta' },
  { id: 'm3', name: 'Gamma', disabled: true },
];

/** A fake server: answers the machines whose name contains the search, at most `limit` of them. */
function fakeSource(limit = 50) {
  const searched = vi.fn<(search: string) => void>();
  const source: SearchSource<Machine> = {
    queryOptions: (search) =>
      queryOptions({
        queryKey: ['test-machines', search] as QueryKey,
        queryFn: (): TPage<Machine> => {
          searched(search);
          const found = machines.filter((machine) => machine.name.toLowerCase().includes(search.toLowerCase()));
          return {
            data: found.slice(0, limit),
            pageNum: 1,
            numberOfItems: limit,
            totalNumOfPages: 1,
            totalNumOfItems: found.length,
          };
        },
      }),
    toOption: (machine) => ({ value: machine.id, label: machine.name }),
    include: (machine) => !machine.disabled,
  };
  return { source, searched };
}

function wrap(ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return renderWithProviders(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

describe('SearchSelect', () => {
  it('asks the server for the typed text (debounced) and shows its matches unfiltered', async () => {
    const { source, searched } = fakeSource();
    function Picker() {
      const [value, setValue] = useState<string | null>(null);
      return <SearchSelect source={source} label="Machine" value={value} onChange={setValue} />;
    }
    wrap(<Picker />);
    await waitFor(() => expect(searched).toHaveBeenCalledWith(''));
    const box = screen.getByRole('textbox', { name: 'Machine' });
    fireEvent.click(box);
    expect(await screen.findByRole('option', { name: 'Alpha' })).toBeTruthy();
    expect(screen.queryByRole('option', { name: 'Gamma' })).toBeNull();

    fireEvent.change(box, { target: { value: 'bet' } });
    await waitFor(() => expect(searched).toHaveBeenCalledWith('bet'));
    expect(searched).not.toHaveBeenCalledWith('b');
    await waitFor(() => expect(screen.queryByRole('option', { name: 'Alpha' })).toBeNull());
    fireEvent.click(screen.getByRole('option', { name: 'Beta' }));
    await waitFor(() => expect((box as HTMLInputElement).value).toBe('Beta'));
  });
});

describe('SearchMultiSelect', () => {
  it('keeps the label of a picked value while another search shows other matches, and says when there are more', async () => {
    const { source, searched } = fakeSource(2);
    function Picker() {
      const [value, setValue] = useState<string[]>([]);
      return <SearchMultiSelect source={source} label="Machines" value={value} onChange={setValue} />;
    }
    wrap(<Picker />);
    expect(await screen.findByText('Showing the first 2 matches: type to narrow them')).toBeTruthy();
    const box = screen.getByRole('textbox', { name: 'Machines' });
    fireEvent.click(box);
    fireEvent.click(await screen.findByRole('option', { name: 'Alpha' }));
    fireEvent.change(box, { target: { value: 'beta' } });
    await waitFor(() => expect(searched).toHaveBeenCalledWith('beta'));
    expect(await screen.findByRole('option', { name: 'Beta' })).toBeTruthy();
    expect(screen.getByText('Alpha')).toBeTruthy();
  });
});

describe('SuggestInput', () => {
  it('asks nothing until focused, then suggests the matches by label and enters the picked value; any other text stays', async () => {
    const { source, searched } = fakeSource();
    const entered: string[] = [];
    function Field() {
      const [value, setValue] = useState('');
      entered.push(value);
      return <SuggestInput source={source} label="Machine id" value={value} onChange={setValue} />;
    }
    wrap(<Field />);
    const box = screen.getByRole('textbox', { name: 'Machine id' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(searched).not.toHaveBeenCalled();

    fireEvent.focus(box);
    await waitFor(() => expect(searched).toHaveBeenCalledWith(''));
    fireEvent.change(box, { target: { value: 'bet' } });
    await waitFor(() => expect(searched).toHaveBeenCalledWith('bet'));
    expect(await screen.findByRole('option', { name: 'Beta' })).toBeTruthy();
    expect(screen.queryByRole('option', { name: 'Alpha' })).toBeNull();
    fireEvent.click(screen.getByRole('option', { name: 'Beta' }));
    await waitFor(() => expect((box as HTMLInputElement).value).toBe('m2'));

    // an id the server has no entry for
    fireEvent.change(box, { target: { value: 'upstream-design-7' } });
    await waitFor(() => expect(searched).toHaveBeenCalledWith('upstream-design-7'));
    expect((box as HTMLInputElement).value).toBe('upstream-design-7');
    expect(entered.at(-1)).toBe('upstream-design-7');
    await waitFor(() => expect(screen.queryByRole('option')).toBeNull());
  });
});
