import { DASHBOARD_DAYS, firstRunStepsOf, type TDashboard } from '@manifold/contract';
import { QueryClientProvider } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../../../lib/query-client';
import { renderWithProviders } from '../../../test/render';
import { Dashboard } from './dashboard';

const days = Array.from({ length: DASHBOARD_DAYS }, (_, index) => ({
  day: `2026-11-${String(11 + index).padStart(2, '0')}`,
  made: index === DASHBOARD_DAYS - 1 ? 4 : 0,
  passed: index === DASHBOARD_DAYS - 1 ? 3 : 0,
  failed: index === DASHBOARD_DAYS - 1 ? 1 : 0,
}));

const forAdmin: TDashboard = {
  generatedAt: '2026-11-24T12:00:00.000Z',
  orders: { live: 2, quantityLeft: 20 },
  authorizations: { waitingToSend: 1 },
  machines: { printing: 1, idle: 2, offline: 3, awaitingApproval: 4 },
  jobs: { inProgress: 1 },
  recentEvents: [
    {
      eventId: 'e1',
      kind: 'jobStarted',
      deviceId: 'd1',
      deviceName: 'Printer One',
      occurredAt: '2026-11-24T11:00:00.000Z',
      receivedAt: '2026-11-24T11:00:01.000Z',
    },
    {
      eventId: 'e2',
      kind: 'qualityCheckFailed',
      deviceId: '00000000-0000-0000-0000-000000000000',
      deviceName: null,
      occurredAt: '2026-11-24T11:30:00.000Z',
      receivedAt: '2026-11-24T11:30:00.000Z',
    },
  ],
  parts: { days, made: 4, passed: 3, failed: 1, passRate: 0.75 },
  peers: {
    total: 1,
    list: [
      {
        id: 'p1',
        name: 'Downstream plant',
        type: 'downStreamManage',
        registrationState: 'Approved',
        pending: 2,
        failed: 1,
        delivered: 3,
        lastDeliveredAt: '2026-11-20T10:00:00.000Z',
      },
    ],
  },
  firstRun: {
    complete: false,
    steps: firstRunStepsOf({ keys: true, certificates: true, storage: false, peers: false, machines: true }),
  },
};

function show(data: TDashboard) {
  return renderWithProviders(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <Dashboard data={data} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('home dashboard', () => {
  it('shows each figure linked to its screen', () => {
    show(forAdmin);
    const figure = (id: string) => screen.getByTestId(id);
    expect(figure('figure-live-orders').textContent).toBe('2Live orders');
    expect(figure('figure-live-orders').getAttribute('href')).toBe('/orders');
    expect(figure('figure-quantity-left').textContent).toBe('20Quantity left to authorize');
    expect(figure('figure-waiting').getAttribute('href')).toBe('/authorizations');
    expect(figure('figure-jobs').textContent).toBe('1Jobs in progress');
    expect(figure('figure-jobs').getAttribute('href')).toBe('/builds');
    expect(figure('figure-pass-rate').textContent).toBe('75.0 %Pass rate, last 14 days');
    expect(figure('figure-machines-printing').textContent).toBe('1Printing');
    expect(figure('figure-machines-idle').textContent).toBe('2Idle');
    expect(figure('figure-machines-offline').textContent).toBe('3Offline');
    expect(figure('figure-machines-awaitingApproval').textContent).toBe('4Awaiting approval');
    expect(figure('figure-machines-offline').getAttribute('href')).toBe('/devices');
  });

  it('gives the chart a table of the same numbers and names it by a summary', () => {
    show(forAdmin);
    expect(screen.getByRole('img', { name: '4 parts made, 3 passed and 1 failed inspection, pass rate 75.0 %' })).toBeTruthy();
    const table = screen.getByTestId('dashboard-parts-table');
    expect(within(table).getAllByRole('row')).toHaveLength(DASHBOARD_DAYS + 1);
    expect(within(table).getByRole('row', { name: '2026-11-24 4 3 1 75.0 %' })).toBeTruthy();
  });

  it('lists recent events (the server\u2019s own named so) and the peers with their deliveries', () => {
    show(forAdmin);
    const events = screen.getByTestId('dashboard-events-table');
    expect(within(events).getByRole('link', { name: 'Printer One' }).getAttribute('href')).toBe('/devices/d1');
    expect(within(events).getByText('This server')).toBeTruthy();
    expect(within(events).getByText('Quality check failed')).toBeTruthy();
    const peers = screen.getByTestId('dashboard-peers-table');
    const row = within(peers).getByText('Downstream plant').closest('tr')!;
    expect(row.textContent?.startsWith('Downstream plantDownstream ManageApproved213')).toBe(true);
    expect(row.querySelector('time')?.getAttribute('dateTime')).toBe('2026-11-20T10:00:00.000Z');
  });

  it('shows the first run until it is complete, each step linked to where it is done', () => {
    const { unmount } = show(forAdmin);
    const firstRun = screen.getByTestId('first-run');
    expect(within(firstRun).getByRole('link', { name: 'Choose the storage' }).getAttribute('href')).toBe('/storage');
    expect(
      within(firstRun)
        .getByRole('link', { name: 'Make the server\u2019s keys' })
        .closest('[data-done]')
        ?.getAttribute('data-done'),
    ).toBe('true');
    expect(firstRun.querySelectorAll('[data-done="false"]')).toHaveLength(2);
    unmount();
    show({ ...forAdmin, firstRun: { ...forAdmin.firstRun!, complete: true } });
    expect(screen.queryByTestId('first-run')).toBeNull();
  });

  it('a USER\u2019s dashboard has no peers and no first run', () => {
    show({ ...forAdmin, peers: null, firstRun: null });
    expect(screen.queryByTestId('dashboard-peers')).toBeNull();
    expect(screen.queryByTestId('first-run')).toBeNull();
    expect(screen.getByTestId('figure-live-orders')).toBeTruthy();
  });
});
