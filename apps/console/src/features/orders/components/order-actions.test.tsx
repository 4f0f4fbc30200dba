import { ModalsProvider } from '@mantine/modals';
import type { TAuthorization } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alerts } from '../../../lib/alerts';
import { setSessionToken } from '../../../lib/session-token';
import { authorization, orderDetail } from '../../../test/order';
import { renderWithProviders } from '../../../test/render';
import { OrderActions } from './order-actions';

/** The order's actions for an order whose detail holds `data`, one page of `pages`. */
function renderActions(data: TAuthorization[], pages: number) {
  const order = orderDetail({
    authorizations: { data, pageNum: 1, numberOfItems: 10, totalNumOfPages: pages, totalNumOfItems: pages * 10 },
  });
  renderWithProviders(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <ModalsProvider>
          <OrderActions order={order} />
        </ModalsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => alerts.clear());

const past = '2026-01-01T00:00:00.000Z';
const future = '2099-01-01T00:00:00.000Z';

describe("the order's send-all action", () => {
  it('counts the waiting ones when the page holds all of them, leaving out the sent and the expired', async () => {
    renderActions(
      [
        authorization(),
        authorization({ expiration: future }),
        authorization({ expiration: past }),
        authorization({ state: 'sent' }),
        authorization({ state: 'revoked' }),
      ],
      1,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Send all waiting (2)' }));
    expect(
      await screen.findByText('Authorizations waiting to be sent: 2 (order PO-7). Machines receive them on their next pull.'),
    ).toBeTruthy();
  });

  it('offers itself without a count when the order has more pages, even with none waiting on this one', async () => {
    renderActions([authorization({ state: 'sent' })], 2);
    fireEvent.click(screen.getByRole('button', { name: 'Send all waiting' }));
    expect(
      await screen.findByText(
        'Every authorization of order PO-7 waiting to be sent goes now. Machines receive them on their next pull.',
      ),
    ).toBeTruthy();
  });

  it('is not offered when the one page has nothing waiting', () => {
    renderActions([authorization({ state: 'sent' }), authorization({ expiration: past })], 1);
    expect(screen.queryByRole('button', { name: /Send all/ })).toBeNull();
  });

  it('reports as sent the ones it left offered to their machines, not those a machine had already received', async () => {
    setSessionToken('token-1');
    const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
      Response.json({
        data: [
          { authorizationId: 'a1', state: 'sent', delivery: null },
          { authorizationId: 'a2', state: 'sent', delivery: null },
          { authorizationId: 'a3', state: 'received', delivery: null },
        ],
      }),
    );
    vi.stubGlobal('fetch', fetch);
    renderActions([authorization(), authorization(), authorization({ state: 'received' })], 1);
    fireEvent.click(screen.getByRole('button', { name: 'Send all waiting (2)' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Send all' }));
    await waitFor(() => expect(alerts.store.get().map((alert) => alert.message)).toEqual(['Authorizations sent: 2']));
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(fetch.mock.calls[0]![1]!.body))).toEqual({
      orderId: '5b0c7c44-7c55-4c9e-8f4e-6a5cf0a1d001',
      sendAll: true,
    });
  });
});
