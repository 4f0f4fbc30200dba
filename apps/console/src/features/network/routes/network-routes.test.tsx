import { ModalsProvider } from '@mantine/modals';
import type { TManageInstance, TPage } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { seedAdminSession } from '../../../test/session';
import { renderWithProviders } from '../../../test/render';
import { ManageInstancesRoute } from './manage-instances-route';
import { ProtectInstancesRoute } from './protect-instances-route';

const certificate = { keyUse: 'signing', companyName: 'Downstream Works', keySerialNumber: '5A17', revoked: false };

function instance(overrides: Partial<TManageInstance>): TManageInstance {
  return {
    manageId: 'b7a3d7a4-2b54-4c2f-9d3e-000000000001',
    version: 1,
    dateCreated: '2026-11-20T10:00:00.000Z',
    manageSiteName: 'Downstream Works',
    manageURL: 'http://127.0.0.1:4100',
    manageType: 'downStreamManage',
    registrationNonce: 'b7a3d7a4-2b54-4c2f-9d3e-0000000000aa',
    upstream: false,
    registrationState: 'Pending',
    initiator: false,
    cryptoCertsForSigning: [certificate],
    cryptoCertsForEncryption: [{ ...certificate, keyUse: 'encryption', keySerialNumber: '5A18' }],
    ...overrides,
  };
}

function page<T>(data: T[]): TPage<T> {
  return { data, pageNum: 1, numberOfItems: 10, totalNumOfPages: 1, totalNumOfItems: data.length };
}

interface Call {
  method: string;
  path: string;
  query: string;
  body: unknown;
}

/** Answers the console's calls by method and path; records each. */
function serve(routes: Record<string, (body: unknown) => { status: number; body: unknown }>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname: path, search: query } = new URL(url, 'http://localhost');
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      calls.push({ method, path, query, body });
      const handler = routes[`${method} ${path}`];
      if (!handler) return new Response(JSON.stringify({ errorToken: 'notFound', errorDescription: path }), { status: 404 });
      const answer = handler(body);
      return new Response(JSON.stringify(answer.body), { status: answer.status });
    }),
  );
  return calls;
}

function renderScreen(ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  seedAdminSession(client);
  return renderWithProviders(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/network']}>
        <ModalsProvider>{ui}</ModalsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeEach(() => setSessionToken('token-1'));
afterEach(() => vi.unstubAllGlobals());

describe('Manage instances', () => {
  it('lets only the side that did not ask approve, after confirming, and shows the peer certificates', async () => {
    const asked = instance({});
    const ours = instance({
      manageId: 'b7a3d7a4-2b54-4c2f-9d3e-000000000002',
      manageSiteName: 'Far Works',
      manageURL: 'http://127.0.0.1:4200',
      initiator: true,
    });
    const calls = serve({
      'GET /ui/manage/list': () => ({ status: 200, body: page([asked, ours]) }),
      'POST /ui/manage/approve': () => ({ status: 200, body: { ...asked, registrationState: 'Approved', version: 2 } }),
    });
    renderScreen(<ManageInstancesRoute />);

    const table = await screen.findByTestId('manage-instances-table');
    await within(table).findByText('Far Works');
    // the initiator's row: the decision is the peer's, said beside the disabled buttons
    const approveOurs = screen.getByRole('button', { name: 'Approve Far Works' });
    expect(approveOurs).toHaveProperty('disabled', true);
    const reason = document.getElementById(approveOurs.getAttribute('aria-describedby') ?? '');
    expect(reason?.textContent).toBe('This instance asked for the registration: only the peer approves or rejects it.');
    expect(within(table).getAllByText('Pending')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Approve Downstream Works' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve registration' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Approve' }));
    await waitFor(() =>
      expect(calls.filter((call) => call.path === '/ui/manage/approve')).toEqual([
        { method: 'POST', path: '/ui/manage/approve', query: '', body: { id: asked.manageId, approve: true } },
      ]),
    );

    fireEvent.click(screen.getByRole('button', { name: 'Certificates of Downstream Works' }));
    const details = await screen.findByTestId('peer-details');
    expect(within(details).getByText('5A17')).toBeTruthy();
    expect(within(details).getByText('5A18')).toBeTruthy();
    expect(within(details).getByText(asked.registrationNonce!)).toBeTruthy();
  });

  it('asks for the list of the chosen kind and places a refused address on its input, translated', async () => {
    const calls = serve({
      'GET /ui/manage/list': () => ({ status: 200, body: page([]) }),
      'POST /ui/manage/add': () => ({
        status: 420,
        body: { errorToken: 'httpClientBadUrl', errorDescription: 'host 10.0.0.5 is not allowed', field: 'manageUrl' },
      }),
    });
    renderScreen(<ManageInstancesRoute />);
    await screen.findByText('No registrations yet.');
    fireEvent.click(screen.getByRole('radio', { name: 'Upstream' }));
    await waitFor(() =>
      expect(
        calls
          .filter((call) => call.path === '/ui/manage/list')
          .map((call) => new URLSearchParams(call.query).get('registrationType')),
      ).toEqual(['downStreamManage', 'upStreamManage']),
    );

    fireEvent.click(screen.getByRole('button', { name: 'Register Manage instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Register a Manage instance' });
    fireEvent.change(within(dialog).getByRole('textbox', { name: /Address/ }), { target: { value: ' http://10.0.0.5 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await within(dialog).findByText('The address is not valid or not allowed for peers')).toBeTruthy();
    expect(
      within(dialog)
        .getByRole('textbox', { name: /Address/ })
        .getAttribute('aria-invalid'),
    ).toBe('true');
    expect(calls.find((call) => call.path === '/ui/manage/add')?.body).toEqual({
      registrationType: 'upStreamManage',
      manageUrl: 'http://10.0.0.5',
    });
  });
});

describe('Protect instances', () => {
  it('shows a new token pair once, with a copy button for each token', async () => {
    serve({
      'GET /ui/protect/list': () => ({
        status: 200,
        body: page([
          {
            id: 'c1',
            version: 1,
            protectId: 'unused-token-1',
            name: '',
            userId: 'admin',
            fss: false,
            registrationState: 'Pending',
            dateCreated: '2026-11-20T10:00:00.000Z',
          },
        ]),
      }),
      'POST /ui/protect/tokens': () => ({ status: 200, body: { token1: 'first-token', token2: 'second-token' } }),
    });
    renderScreen(<ProtectInstancesRoute />);
    await screen.findByText('unused-token-1');
    expect(screen.getByRole('button', { name: 'Approve unused-token-1' })).toHaveProperty('disabled', true);
    expect(screen.getByText('No Protect instance has registered with this token pair yet.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'New token pair' }));
    const tokens = await screen.findByTestId('protect-tokens');
    expect(within(tokens).getByText('Shown once')).toBeTruthy();
    expect(within(tokens).getByText('first-token')).toBeTruthy();
    expect(within(tokens).getByText('second-token')).toBeTruthy();
    expect(within(tokens).getByRole('button', { name: 'Copy token 1' })).toBeTruthy();
    expect(within(tokens).getByRole('button', { name: 'Copy token 2' })).toBeTruthy();
  });
});
