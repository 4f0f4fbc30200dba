import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type InitialEntry } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { usePagedSearch, usePageInRange, type PagedSearchOptions } from './use-paged-search';

/** What a list screen does with the hook: its page, its search box and, once loaded, its page count. */
function List({
  options,
  totalPages,
  placeholder = false,
  testId = 'list',
}: {
  options?: PagedSearchOptions<'state'>;
  totalPages?: number;
  placeholder?: boolean;
  testId?: string;
}) {
  const list = usePagedSearch(options);
  usePageInRange(list, {
    data: totalPages === undefined ? undefined : { totalNumOfPages: totalPages },
    isPlaceholderData: placeholder,
  });
  return (
    <div data-testid={testId}>
      <output data-testid={`${testId}-page`}>{list.page}</output>
      <output data-testid={`${testId}-query`}>{list.query ?? '(none)'}</output>
      <output data-testid={`${testId}-state`}>{list.filters.state ?? '(all)'}</output>
      <output data-testid={`${testId}-narrowed`}>{String(list.narrowed)}</output>
      <input
        aria-label={`search ${testId}`}
        value={list.search}
        onChange={(event) => list.setSearch(event.currentTarget.value)}
      />
      <button type="button" onClick={() => list.setPage(list.page + 1)}>
        next {testId}
      </button>
      <button type="button" onClick={() => list.setFilters({ state: 'failed' })}>
        failed {testId}
      </button>
    </div>
  );
}

function renderAt(entries: InitialEntry[], element: React.ReactElement, initialIndex = entries.length - 1) {
  const router = createMemoryRouter(
    [
      { path: '/list', element },
      { path: '/other', element: <p>other screen</p> },
    ],
    { initialEntries: entries, initialIndex },
  );
  render(<RouterProvider router={router} />);
  return router;
}

const pageShown = (testId = 'list') => screen.getByTestId(`${testId}-page`).textContent;
const queryShown = (testId = 'list') => screen.getByTestId(`${testId}-query`).textContent;
const searchBox = (testId = 'list') => screen.getByLabelText<HTMLInputElement>(`search ${testId}`);
/** Long enough for the search's pause (300 ms) and a render on a busy machine. */
const settles = { timeout: 10_000 };

describe('usePagedSearch: the page and the search text in the address', () => {
  it('reads them from the address', () => {
    renderAt(['/list?page=3&search=abc%20'], <List />);
    expect(pageShown()).toBe('3');
    expect(searchBox().value).toBe('abc ');
    expect(queryShown()).toBe('abc');
  });

  it('shows the first page for a page the address names wrongly', () => {
    for (const value of ['abc', '-1', '0', '1.5', '', '1e3', '2abc', '%20']) {
      const router = renderAt([`/list?page=${value}`], <List totalPages={5} />);
      expect(pageShown(), value).toBe('1');
      // nothing to put right: the address stays as it was
      expect(router.state.location.search).toBe(`?page=${value}`);
      act(() => router.dispose());
      document.body.innerHTML = '';
    }
  });

  it('pushes another page, so back and forward go through the pages seen', async () => {
    const router = renderAt(['/list'], <List totalPages={5} />);
    expect(pageShown()).toBe('1');
    fireEvent.click(screen.getByRole('button', { name: 'next list' }));
    await waitFor(() => expect(pageShown()).toBe('2'), settles);
    expect(router.state.location.search).toBe('?page=2');
    expect(router.state.historyAction).toBe('PUSH');
    fireEvent.click(screen.getByRole('button', { name: 'next list' }));
    await waitFor(() => expect(router.state.location.search).toBe('?page=3'), settles);

    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?page=2');
    expect(pageShown()).toBe('2');
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('');
    expect(pageShown()).toBe('1');
    await act(() => router.navigate(1));
    expect(pageShown()).toBe('2');
  });

  it('keeps the page of a list left and come back to through the history only', async () => {
    const router = renderAt(['/list?page=4'], <List totalPages={5} />);
    await act(() => router.navigate('/other'));
    screen.getByText('other screen');
    await act(() => router.navigate(-1));
    expect(pageShown()).toBe('4');
    // opened afresh (a link, the navigation), the list starts at its first page
    await act(() => router.navigate('/list'));
    expect(pageShown()).toBe('1');
  });

  it('writes the search to the address once the typing pauses, back at the first page, as one new entry', async () => {
    const router = renderAt(['/other', '/list?page=3'], <List totalPages={5} />);
    fireEvent.change(searchBox(), { target: { value: 'a' } });
    fireEvent.change(searchBox(), { target: { value: 'ab' } });
    // the box follows each key at once; the list asks for what is typed after the pause
    expect(searchBox().value).toBe('ab');
    expect(queryShown()).toBe('(none)');
    // the router's entry and the list rendered from it (a loaded machine renders later than the router moves)
    await waitFor(() => {
      expect(router.state.location.search).toBe('?search=ab');
      expect(queryShown()).toBe('ab');
    }, settles);
    expect(router.state.historyAction).toBe('PUSH');
    expect(pageShown()).toBe('1');
    expect(queryShown()).toBe('ab');
    expect(searchBox().value).toBe('ab');

    // typing on replaces the search's own entry; a search emptied leaves no trace in the address
    fireEvent.change(searchBox(), { target: { value: '' } });
    await waitFor(() => {
      expect(router.state.location.search).toBe('');
      expect(queryShown()).toBe('(none)');
    }, settles);
    expect(router.state.historyAction).toBe('REPLACE');
    expect(queryShown()).toBe('(none)');
    // back: the page before the search, then the screen before the list
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?page=3');
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/other');
  });

  it('returns on back to the page and search before a search typed, and on forward to the search', async () => {
    const router = renderAt(['/other', '/list?page=3&search=old'], <List totalPages={5} />);
    fireEvent.change(searchBox(), { target: { value: 'ne' } });
    await waitFor(() => {
      expect(router.state.location.search).toBe('?search=ne');
      expect(queryShown()).toBe('ne');
    }, settles);
    expect(router.state.historyAction).toBe('PUSH');
    fireEvent.change(searchBox(), { target: { value: 'new' } });
    await waitFor(() => expect(router.state.location.search).toBe('?search=new'), settles);
    expect(router.state.historyAction).toBe('REPLACE');

    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?page=3&search=old');
    expect(pageShown()).toBe('3');
    expect(searchBox().value).toBe('old');
    expect(queryShown()).toBe('old');
    await act(() => router.navigate(1));
    expect(router.state.location.search).toBe('?search=new');
    expect(searchBox().value).toBe('new');
    expect(pageShown()).toBe('1');

    // another page is an entry of its own, and so is the next search typed there
    fireEvent.click(screen.getByRole('button', { name: 'next list' }));
    await waitFor(() => {
      expect(router.state.location.search).toBe('?search=new&page=2');
      expect(pageShown()).toBe('2');
    }, settles);
    fireEvent.change(searchBox(), { target: { value: 'newer' } });
    await waitFor(() => expect(router.state.location.search).toBe('?search=newer'), settles);
    expect(router.state.historyAction).toBe('PUSH');
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?search=new&page=2');
    expect(searchBox().value).toBe('new');
    expect(pageShown()).toBe('2');
  });

  it('writes nothing when the search typed settles on what the address has', async () => {
    const router = renderAt(['/other', '/list?page=3&search=old'], <List totalPages={5} />);
    fireEvent.change(searchBox(), { target: { value: 'olde' } });
    fireEvent.change(searchBox(), { target: { value: 'old' } });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(router.state.location.search).toBe('?page=3&search=old');
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/other');
  });

  it('keeps a search typed within the pause when the page is left (a reload): the list comes back with it', async () => {
    const entry = { pathname: '/list', search: '?page=3', key: 'reloaded-entry' };
    const before = renderAt([entry], <List totalPages={5} />);
    fireEvent.change(searchBox(), { target: { value: 'typed just now' } });
    // the page unloads before the pause is over: nothing of it reached the address
    window.dispatchEvent(new Event('pagehide'));
    expect(before.state.location.search).toBe('?page=3');
    act(() => before.dispose());
    document.body.innerHTML = '';

    // the same entry of the history loaded again
    const after = renderAt([entry], <List totalPages={5} />);
    expect(searchBox().value).toBe('typed just now');
    await waitFor(() => expect(after.state.location.search).toBe('?search=typed+just+now'), settles);
    expect(queryShown()).toBe('typed just now');
    await act(() => after.navigate(-1));
    expect(after.state.location.search).toBe('?page=3');
  });

  it('does not put a search left unwritten into another entry of the history', () => {
    const before = renderAt([{ pathname: '/list', search: '?page=3', key: 'left-entry' }], <List totalPages={5} />);
    fireEvent.change(searchBox(), { target: { value: 'typed just now' } });
    window.dispatchEvent(new Event('pagehide'));
    act(() => before.dispose());
    document.body.innerHTML = '';
    renderAt([{ pathname: '/list', search: '?page=3', key: 'another-entry' }], <List totalPages={5} />);
    expect(searchBox().value).toBe('');
  });

  it('puts the search text of the address back in the box on back and forward', async () => {
    const router = renderAt(['/list?search=first', '/list?search=second&page=2'], <List totalPages={5} />);
    expect(searchBox().value).toBe('second');
    await act(() => router.navigate(-1));
    expect(searchBox().value).toBe('first');
    expect(queryShown()).toBe('first');
    expect(pageShown()).toBe('1');
    await act(() => router.navigate(1));
    expect(searchBox().value).toBe('second');
    expect(pageShown()).toBe('2');
  });

  it('does not let a search typed before leaving the list change the next screen’s address', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const router = renderAt(['/list'], <List />);
      fireEvent.change(searchBox(), { target: { value: 'abandoned' } });
      await act(() => router.navigate('/other'));
      // the pause the search waits for passes on the other screen
      await act(() => vi.runAllTimersAsync());
      expect(router.state.location.pathname).toBe('/other');
      expect(router.state.location.search).toBe('');
      // back on the list, the search typed is in its box and then its address
      await act(() => router.navigate(-1));
      expect(searchBox().value).toBe('abandoned');
      await act(() => vi.runAllTimersAsync());
      expect(router.state.location.search).toBe('?search=abandoned');
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the last page for a page past the end, replacing the address, once the list answered', async () => {
    const router = renderAt(['/other', '/list?page=99999&search=x'], <List totalPages={4} />);
    await waitFor(() => expect(router.state.location.search).toBe('?page=4&search=x'), settles);
    expect(router.state.historyAction).toBe('REPLACE');
    expect(pageShown()).toBe('4');
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/other');
  });

  it('shows the first page of a list with nothing in it', async () => {
    const router = renderAt(['/list?page=7'], <List totalPages={0} />);
    await waitFor(() => expect(router.state.location.search).toBe(''), settles);
    expect(pageShown()).toBe('1');
  });

  it('asks for no more than the largest page a list call takes, then shows the last', async () => {
    const unloaded = renderAt(['/list?page=99999999999999999999'], <List />);
    expect(pageShown()).toBe('1000000000');
    expect(unloaded.state.location.search).toBe('?page=99999999999999999999');
    act(() => unloaded.dispose());
    document.body.innerHTML = '';
    const router = renderAt(['/list?page=99999999999999999999'], <List totalPages={2} />);
    await waitFor(() => expect(router.state.location.search).toBe('?page=2'), settles);
  });

  it('leaves the page alone while the list shows the answer to another page or search', () => {
    // the previous answer shown while the next loads says nothing of the page asked for
    const router = renderAt(['/list?page=5'], <List totalPages={1} placeholder />);
    expect(pageShown()).toBe('5');
    expect(router.state.location.search).toBe('?page=5');
  });

  it('gives lists sharing a screen their own names, and keeps the rest of the address', async () => {
    const router = renderAt(
      ['/list?partId=p1'],
      <>
        <List testId="types" options={{ pageParam: 'typesPage', searchParam: 'typesSearch' }} totalPages={5} />
        <List testId="templates" options={{ pageParam: 'templatesPage' }} totalPages={5} />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'next types' }));
    await waitFor(() => expect(router.state.location.search).toBe('?partId=p1&typesPage=2'), settles);
    fireEvent.click(screen.getByRole('button', { name: 'next templates' }));
    await waitFor(() => expect(router.state.location.search).toBe('?partId=p1&typesPage=2&templatesPage=2'), settles);
    fireEvent.change(searchBox('types'), { target: { value: 'z' } });
    await waitFor(() => expect(router.state.location.search).toBe('?partId=p1&templatesPage=2&typesSearch=z'), settles);
    expect(pageShown('types')).toBe('1');
    expect(pageShown('templates')).toBe('2');
    expect(queryShown('templates')).toBe('(none)');
  });

  it('keeps a filter in the address: a change of it is pushed and starts this list and those it narrows at their first page', async () => {
    const router = renderAt(
      ['/list?page=3&passedPage=2&other=1'],
      <List options={{ filters: ['state'], alsoResets: ['passedPage'] }} totalPages={5} />,
    );
    expect(screen.getByTestId('list-state').textContent).toBe('(all)');
    fireEvent.click(screen.getByRole('button', { name: 'failed list' }));
    await waitFor(() => expect(router.state.location.search).toBe('?other=1&state=failed'), settles);
    expect(router.state.historyAction).toBe('PUSH');
    expect(screen.getByTestId('list-state').textContent).toBe('failed');
    expect(pageShown()).toBe('1');
  });

  it.each([
    ['/list', 'false'],
    ['/list?page=2', 'false'],
    ['/list?search=%20%20', 'false'],
    ['/list?state=%20', 'false'],
    ['/list?search=abc', 'true'],
    ['/list?state=failed', 'true'],
  ])('says whether a search or a filter narrows the list (%s: %s)', (address, narrowed) => {
    renderAt([address], <List options={{ filters: ['state'] }} />);
    expect(screen.getByTestId('list-narrowed').textContent).toBe(narrowed);
  });
});
