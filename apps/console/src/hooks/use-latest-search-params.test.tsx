import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useSearchParams } from 'react-router';
import { describe, expect, it } from 'vitest';
import { useLatestSearchParams } from './use-latest-search-params';

/** A filter cleared and another set in one go, as a quick hand (or a test) does on the audit screen. */
function Filters({ setter }: { setter: 'latest' | 'router' }) {
  const [latestParams, setLatest] = useLatestSearchParams();
  const [routerParams, setRouter] = useSearchParams();
  const params = setter === 'latest' ? latestParams : routerParams;
  const set = (name: string, value: string | null) => {
    const apply = (base: URLSearchParams) => {
      const next = new URLSearchParams(base);
      if (value === null) next.delete(name);
      else next.set(name, value);
      return next;
    };
    if (setter === 'latest') setLatest(apply);
    else setRouter(apply(routerParams));
  };
  return (
    <button
      type="button"
      onClick={() => {
        set('fromDay', null);
        set('toDay', '2026-11-29');
      }}
    >
      {params.toString()}
    </button>
  );
}

/** The address once both changes are made, with a loader that holds each navigation a while. */
async function afterTwoQuickChanges(setter: 'latest' | 'router') {
  const router = createMemoryRouter(
    [
      {
        path: '/audit',
        element: <Filters setter={setter} />,
        loader: () => new Promise((resolve) => setTimeout(resolve, 20, null)),
      },
    ],
    { initialEntries: ['/audit?fromDay=2099-01-01'] },
  );
  render(<RouterProvider router={router} />);
  const button = await screen.findByRole('button', { name: 'fromDay=2099-01-01' });
  act(() => void fireEvent.click(button));
  await waitFor(() => expect(router.state.navigation.state).toBe('idle'));
  await new Promise((resolve) => setTimeout(resolve, 60));
  await waitFor(() => expect(router.state.navigation.state).toBe('idle'));
  return router.state.location.search;
}

describe('useLatestSearchParams', () => {
  it('builds each change on the last one asked for, not on the query string rendered', async () => {
    expect(await afterTwoQuickChanges('latest')).toBe('?toDay=2026-11-29');
  });

  it("is needed: React Router's setter alone puts the cleared filter back", async () => {
    expect(await afterTwoQuickChanges('router')).toBe('?fromDay=2099-01-01&toDay=2026-11-29');
  });
});
