import { ModalsProvider } from '@mantine/modals';
import type { TAuthorization } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
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
});
