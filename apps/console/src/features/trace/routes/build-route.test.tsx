import type { TBuild } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderWithProviders } from '../../../test/render';
import { seedAdminSession } from '../../../test/session';
import { BuildRoute } from './build-route';

const build = (state: TBuild['state']): TBuild => ({
  buildId: '0b3f5c2e-9a41-4d7e-8f10-2c6d1e5a7b90',
  jobId: 'printer-1-job-7',
  deviceId: '6e65a97b-0ffe-434b-ace4-17b239a30fad',
  authorizationId: '08bf7221-50e7-4aea-83c3-4c45646b3c0e',
  orderId: 'c0ce62ad-fe3c-4469-9532-25adf44bf6d6',
  dsiId: '42e3edf4-1aa7-45d1-8321-e107c21b2e72',
  state,
  quantity: 2,
  startedAt: '2026-11-30T02:30:00.000Z',
  finishedAt: state === 'started' || state === 'paused' ? null : '2026-11-30T02:31:00.000Z',
  dateCreated: '2026-11-30T02:30:00.000Z',
});

const page = (data: unknown[]) =>
  new Response(JSON.stringify({ data, pageNum: 1, numberOfItems: 10, totalNumOfPages: 1, totalNumOfItems: data.length }), {
    status: 200,
  });

function renderBuild(state: TBuild['state']) {
  const shown = build(state);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      return page(pathname === '/ui/build/list' ? [shown] : []);
    }),
  );
  // the seeded session counts as fresh: no session check reaches the stub
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  seedAdminSession(client);
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[`/builds/${shown.buildId}`]}>
        <Routes>
          <Route path="/builds/:buildId" element={<BuildRoute />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  setSessionToken('token-1');
});

describe('the build screen', () => {
  it('offers the inspection of an ended build', async () => {
    renderBuild('ended');
    await screen.findByRole('heading', { name: 'Build of job printer-1-job-7', level: 1 });
    expect(screen.getByRole('link', { name: 'Inspect the build' }).getAttribute('href')).toBe(
      '/quality/inspect?buildId=0b3f5c2e-9a41-4d7e-8f10-2c6d1e5a7b90',
    );
  });

  it.each(['started', 'paused', 'failed', 'cancelled'] as const)(
    'does not offer to inspect a build whose job has not ended well (%s): the server has no part of it to inspect',
    async (state) => {
      renderBuild(state);
      await screen.findByRole('heading', { name: 'Build of job printer-1-job-7', level: 1 });
      expect(screen.queryByRole('link', { name: 'Inspect the build' })).toBeNull();
    },
  );
});
