import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { vi } from 'vitest';
import { setSessionToken } from '../lib/session-token';
import { renderWithProviders, type TestLocale } from './render';
import { seedAdminSession } from './session';

/** A logged-in session whose only call, `GET listPath`, answers one page of `data`; anything else is a 500. */
export function stubListCall(listPath: string, data: unknown[]): void {
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname !== listPath) return new Response('{}', { status: 500 });
      const page = { data, pageNum: 1, numberOfItems: 10, totalNumOfPages: 1, totalNumOfItems: data.length };
      return new Response(JSON.stringify(page), { status: 200 });
    }),
  );
}

/** `screen` at `path` for an administrator (its session in the cache), no retries; in English unless `locale` says. */
export function renderListScreen(screen: ReactElement, path: string, { locale = 'en' }: { locale?: TestLocale } = {}): void {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  seedAdminSession(client);
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>{screen}</MemoryRouter>
    </QueryClientProvider>,
    { locale },
  );
}
