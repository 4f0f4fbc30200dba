import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AreaPages } from '../../../components/page-title';
import { setSessionToken } from '../../../lib/session-token';
import { setTestConsoleConfig } from '../../../test/console-config';
import { renderWithProviders } from '../../../test/render';
import { StorageRoute } from './storage-route';

beforeEach(() => {
  setTestConsoleConfig();
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/admin/storage/provider/list') return Response.json({ data: ['local'] });
      if (pathname === '/ui/admin/storage/provider')
        return Response.json({ identifier: 'local', configured: true, credentials: null, move: null });
      if (pathname === '/ui/admin/storage/type/list') return Response.json({ data: [] });
      if (pathname === '/ui/admin/das') return Response.json({ enabled: false });
      return new Response('{}', { status: 404 });
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

/** The headings of the storage screen, each as its level and text. */
async function headings(inArea: boolean): Promise<[number, string][]> {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <MemoryRouter initialEntries={['/storage']}>
      <QueryClientProvider client={client}>
        {inArea ? (
          <AreaPages>
            <StorageRoute />
          </AreaPages>
        ) : (
          <StorageRoute />
        )}
      </QueryClientProvider>
    </MemoryRouter>,
  );
  await waitFor(() => expect(screen.getAllByRole('heading').length).toBeGreaterThan(1));
  return screen.getAllByRole('heading').map((heading) => [Number(heading.tagName.slice(1)), heading.textContent ?? '']);
}

describe('the headings of the storage screen', () => {
  it('are its title (h1) and its sections (h2) at /storage', async () => {
    const levels = await headings(false);
    expect(levels[0]).toEqual([1, 'Storage']);
    expect(new Set(levels.slice(1).map(([level]) => level))).toEqual(new Set([2]));
  });

  it('are one level down as a page of Settings, under its h1: the title h2, the sections h3', async () => {
    const levels = await headings(true);
    expect(levels[0]).toEqual([2, 'Storage']);
    expect(new Set(levels.slice(1).map(([level]) => level))).toEqual(new Set([3]));
  });
});
