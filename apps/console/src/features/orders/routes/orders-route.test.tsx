import { waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderListScreen } from '../../../test/list-screen';
import { OrdersRoute } from './orders-route';

/** The pages the order list was asked for, answered as the server does for a list of 25 orders, 10 a page. */
let asked: (string | null)[];

beforeEach(() => {
  asked = [];
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname, searchParams } = new URL(url, 'http://localhost');
      if (pathname !== '/ui/order/list') return new Response('{}', { status: 500 });
      asked.push(searchParams.get('pageNum'));
      const pageNum = Number(searchParams.get('pageNum'));
      const page = { data: [], pageNum, numberOfItems: 10, totalNumOfPages: 3, totalNumOfItems: 25 };
      return new Response(JSON.stringify(page), { status: 200 });
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe('the order list', () => {
  it('put right a page past its end (an old link, a reload after deletions) to its last page, not an empty one', async () => {
    renderListScreen(<OrdersRoute />, '/orders?pageNum=99999&filterByCompanyName=Acme');
    // a loaded machine renders slowly: wait for the second call as long as it takes, within reason
    await waitFor(() => expect(asked).toEqual(['99999', '3']), { timeout: 10_000 });
  });
});
