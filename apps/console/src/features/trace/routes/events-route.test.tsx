import type { TTraceEventEntry } from '@manifold/contract';
import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderListScreen, stubListCall } from '../../../test/list-screen';
import { EventsRoute } from './events-route';

function entry(id: string, source: TTraceEventEntry['source'], deviceId: string, orderId: string): TTraceEventEntry {
  return {
    id,
    eventId: `${id}-event`,
    version: 1,
    event: {
      kind: 'jobStarted',
      deviceId,
      occurredAt: '2026-11-20T10:00:00.000Z',
      authorizationId: null,
      orderId,
      dsiId: null,
      jobId: 'job-1',
      quantity: 1,
      data: {},
    },
    status: 'verified',
    chainFinding: null,
    sequence: 1,
    eventHash: 'a'.repeat(64),
    previousHash: null,
    source,
    dateCreated: '2026-11-20T10:00:01.000Z',
  };
}

const local = entry('1', 'stp', '11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000001');
const forwarded = entry('2', 'peer', '33333333-0000-4000-8000-000000000001', '44444444-0000-4000-8000-000000000001');

beforeEach(() => stubListCall('/ui/event/list', [local, forwarded]));
afterEach(() => vi.unstubAllGlobals());

describe('the events screen', () => {
  it("links a machine and an order to their pages here, and names a forwarded event's without a link", async () => {
    renderListScreen(<EventsRoute />, '/events');
    const localRow = await screen.findByText((_, element) => element?.getAttribute('data-event-id') === local.eventId);
    const links = [...localRow.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(links).toEqual([`/devices/${local.event.deviceId}`, `/orders/${local.event.orderId}`]);

    const forwardedRow = document.querySelector(`[data-event-id="${forwarded.eventId}"]`)!;
    expect(forwardedRow.querySelectorAll('a')).toHaveLength(0);
    const machine = forwardedRow.querySelector(`[data-id="${forwarded.event.deviceId}"]`)!;
    expect(machine.getAttribute('title')).toBe(
      `${forwarded.event.deviceId}: forwarded by a Manage instance; its page is on that instance`,
    );
    expect(forwardedRow.querySelector(`[data-id="${forwarded.event.orderId}"]`)).not.toBeNull();
    // its signed history can still be exported here
    expect(screen.getByRole('button', { name: `Export the signed events of machine ${forwarded.event.deviceId}` })).toBeTruthy();
  });
});
