import { ModalsProvider } from '@mantine/modals';
import type { TAuditEntry, TOrderDetail, TRole } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionQueryKey } from '../../../lib/session';
import { setSessionToken } from '../../../lib/session-token';
import { authorization, orderDetail } from '../../../test/order';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { seedAdminSession } from '../../../test/session';
import { orderQueryOptions } from '../api/get-order';
import { OrderRoute } from './order-route';

const history: TAuditEntry[] = [
  {
    eventType: 'licenceAuthorized',
    actor: 'admin',
    subject: '5b0c7c44-7c55-4c9e-8f4e-6a5cf0a1d001',
    details: null,
    dateCreated: '2026-11-02T10:00:00.000Z',
  },
  {
    eventType: 'licenceAuthorized',
    actor: 'admin',
    subject: '5b0c7c44-7c55-4c9e-8f4e-6a5cf0a1d001',
    details: null,
    dateCreated: '2026-11-01T11:00:00.000Z',
  },
];

/** The order screen with the order's detail already fetched, for a session of `role`. */
function renderOrder(
  historyTruncated: boolean,
  role: TRole = 'ADMIN',
  overrides: Partial<TOrderDetail> = {},
  locale: TestLocale = 'en',
) {
  const order = orderDetail({ history, historyTruncated, ...overrides });
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  seedAdminSession(client);
  client.setQueryData(sessionQueryKey, (session: { userProfile: object } | undefined) =>
    session ? { ...session, userProfile: { ...session.userProfile, role } } : session,
  );
  client.setQueryData(orderQueryOptions(order.orderId, 1).queryKey, order);
  renderOrderScreen(client, order.orderId, '', locale);
  return order;
}

/** The order screen of `orderId` opened at `search`, on what `client` holds. */
function renderOrderScreen(client: QueryClient, orderId: string, search = '', locale: TestLocale = 'en') {
  renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[`/orders/${orderId}${search}`]}>
        <ModalsProvider>
          <Routes>
            <Route path="/orders/:orderId" element={<OrderRoute />} />
          </Routes>
        </ModalsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
    { locale },
  );
}

beforeEach(() => {
  setSessionToken('token-1');
  // nothing here may reach the server: the detail is in the cache
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response('{}', { status: 500 })),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe("the order screen's history", () => {
  it('shows every record when the order has no older ones, without a way to the audit list', async () => {
    renderOrder(false);
    expect(await screen.findByText('Recorded events: 2')).toBeTruthy();
    expect(
      screen.getByRole('table', { name: 'Recorded events: 2' }).querySelectorAll('[data-event="licenceAuthorized"]'),
    ).toHaveLength(2);
    expect(screen.queryByTestId('order-history-all')).toBeNull();
  });

  it("says it shows the latest and links an administrator to all of the order's records in the audit list", async () => {
    const order = renderOrder(true);
    expect(await screen.findByText('The latest 2 recorded events')).toBeTruthy();
    const link = screen.getByTestId('order-history-all');
    expect(link.textContent).toBe("All of this order's events in the audit log");
    expect(link.getAttribute('href')).toBe(`/audit?subject=${order.orderId}`);
  });

  it('offers no audit link to a user, who cannot open the audit list', async () => {
    renderOrder(true, 'USER');
    expect(await screen.findByText('The latest 2 recorded events')).toBeTruthy();
    expect(screen.queryByTestId('order-history-all')).toBeNull();
  });
});

describe("the order screen's history of machine events", () => {
  it("names the machines' events of the order's licences in words, like the audit list", async () => {
    const machineEvents: TAuditEntry[] = ['jobStarted', 'privateFileDecrypted', 'uploadTokenIssued', 'machineDataReceived'].map(
      (eventType) => ({
        eventType: eventType as TAuditEntry['eventType'],
        actor: 'device:027d7b3e',
        subject: '5b0c7c44-7c55-4c9e-8f4e-6a5cf0a1d001',
        details: null,
        dateCreated: '2026-11-02T10:00:00.000Z',
      }),
    );
    renderOrder(false, 'ADMIN', { history: machineEvents });
    const table = await screen.findByRole('table', { name: 'Recorded events: 4' });
    const events = [...table.querySelectorAll('[data-event] td:nth-child(2)')].map((cell) => cell.textContent);
    expect(events).toEqual([
      'Manufacturing job started',
      'Private file decrypted',
      'Upload token issued to machine',
      'Machine data received',
    ]);
  });
});

describe("the order screen's machine constraints", () => {
  const deviceIdentity = { id: 'press-7', serialNumber: 'SN-0042', manufacturer: 'Acme', deviceClass: 'FDM' };

  /** The value cell of the row `label` of the order's details. */
  const rowValue = (label: string) => screen.getByText(label, { selector: 'th' }).nextElementSibling as HTMLElement;

  it.each([
    [
      'en',
      'Machine constraints',
      ['Machine id: press-7', 'Serial number: SN-0042', 'Manufacturer: Acme', 'Class: FDM'],
      'Any machine',
    ],
    ['zh', '设备限制', ['设备 ID：press-7', '序列号：SN-0042', '制造商：Acme', '类别：FDM'], '任何设备'],
  ] as const)('name each field of the machine by its label, not by the API (%s)', async (locale, row, lines, any) => {
    renderOrder(false, 'ADMIN', { deviceIdentity }, locale);
    const cell = await waitFor(() => rowValue(row));
    expect([...cell.querySelectorAll('li')].map((item) => item.textContent)).toEqual(lines);
    expect(cell.textContent).not.toMatch(/serialNumber|deviceClass/);
    cleanup();
    renderOrder(false, 'ADMIN', { deviceIdentity: null }, locale);
    expect((await waitFor(() => rowValue(row))).textContent).toBe(any);
  });
});

describe("the order screen's parameters", () => {
  it('says which kind of parameter the order does not set', async () => {
    renderOrder(false, 'ADMIN', { deviceParameters: [], qualityParameters: [] });
    expect(await screen.findByText('The order sets no device parameters')).toBeTruthy();
    expect(screen.getByText('The order sets no quality parameters')).toBeTruthy();
    expect(screen.queryByText('No parameters')).toBeNull();
  });
});

describe("the order screen's authorizations", () => {
  /** The order with `authorizations` split two to a page (in the cache, as fetched), opened at `search`. */
  function renderPages(search: string) {
    const shown = [authorization(), authorization(), authorization()];
    const order = orderDetail();
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    seedAdminSession(client);
    const page = (pageNum: number) => ({
      ...order,
      authorizations: {
        data: shown.slice((pageNum - 1) * 2, pageNum * 2),
        pageNum,
        numberOfItems: 2,
        totalNumOfPages: 2,
        totalNumOfItems: shown.length,
      },
    });
    for (const pageNum of [1, 2, 9]) client.setQueryData(orderQueryOptions(order.orderId, pageNum).queryKey, page(pageNum));
    renderOrderScreen(client, order.orderId, search);
    return shown;
  }

  /** As long as a loaded machine takes to render the page. */
  const settles = { timeout: 10_000 };
  const rows = () =>
    [...document.querySelectorAll('[data-authorization-id]')].map((row) => row.getAttribute('data-authorization-id'));

  it('open at the page the address names', async () => {
    const shown = renderPages('?page=2');
    await waitFor(() => expect(rows()).toEqual([shown[2]!.authorizationId]), settles);
  });

  it('open at the last page when the address names one past the end, not at an empty one', async () => {
    const shown = renderPages('?page=9');
    await waitFor(() => expect(rows()).toEqual([shown[2]!.authorizationId]), settles);
    expect(screen.getByRole('button', { name: 'Page 2' }).getAttribute('aria-current')).toBe('page');
  });
});
