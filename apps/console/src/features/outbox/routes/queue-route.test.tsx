import type { TQueuedEvent } from '@manifold/contract';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderListScreen, stubListCall } from '../../../test/list-screen';
import { QueueRoute } from './queue-route';

function queued(eventId: string, kind: string): TQueuedEvent {
  return {
    id: eventId,
    eventId,
    kind,
    deviceId: '11111111-0000-4000-8000-000000000001',
    occurredAt: '2026-11-20T10:00:00.000Z',
    state: 'pending',
    targets: 1,
    delivered: 0,
    attempts: 0,
    nextAttemptAt: '2026-11-20T10:00:01.000Z',
    lastError: null,
    dateCreated: '2026-11-20T10:00:01.000Z',
  };
}

const ended = queued('22222222-0000-4000-8000-000000000001', 'jobEnded');
const unknown = queued('22222222-0000-4000-8000-000000000002', 'someFutureKind');

beforeEach(() => stubListCall('/ui/queue/list', [ended, unknown]));
afterEach(() => vi.unstubAllGlobals());

describe('the event queue screen', () => {
  it("names each event's kind in the reader's words, as the events screen does", async () => {
    renderListScreen(<QueueRoute />, '/queue');
    const row = await screen.findByText((_, element) => element?.getAttribute('data-event-id') === ended.eventId);
    const kind = row.querySelector('[data-kind]')!;
    expect(kind.textContent).toBe('Manufacturing job ended');
    // a kind this console has no words for is shown as the server names it
    const other = document.querySelector(`[data-event-id="${unknown.eventId}"] [data-kind]`)!;
    expect(other.textContent).toBe('someFutureKind');
  });

  it('opens the page the address names (a reload, back, a shared link)', async () => {
    renderListScreen(<QueueRoute />, '/queue?page=2');
    const asked = () =>
      vi.mocked(fetch).mock.calls.map(([url]) => new URL(String(url), 'http://localhost').searchParams.get('pageNum'));
    await waitFor(() => expect(asked()).toContain('2'), { timeout: 10_000 });
    expect(asked()).not.toContain('1');
  });
});
