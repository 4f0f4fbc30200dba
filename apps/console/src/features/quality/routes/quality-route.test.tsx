import type { TQualitySearchResponse } from '@manifold/contract';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderListScreen } from '../../../test/list-screen';
import { noQualityStatistics } from '../../../test/quality';
import { QualityRoute } from './quality-route';

const emptyPage = { data: [], pageNum: 1, numberOfItems: 10, totalNumOfPages: 0, totalNumOfItems: 0 };
const nothingFound: TQualitySearchResponse = {
  passed: emptyPage,
  failed: emptyPage,
  filtering: { sortBy: 'inspectedAt', sortOrder: 'desc' },
  statistics: noQualityStatistics,
};

const isDay = (day: string) => new Date(`${day}T00:00:00.000Z`).toISOString().slice(0, 10) === day;
const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

/** The searches sent, answered as the server does: a day the calendar lacks or a range ending before it starts is refused on its field. */
let searches: Record<string, unknown>[];

beforeEach(() => {
  searches = [];
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      if (new URL(url, 'http://localhost').pathname !== '/ui/qms/parts/search') return answer(500, {});
      const body = JSON.parse(String(init.body)) as { from?: string; to?: string; supplier?: string };
      searches.push(body);
      for (const field of ['from', 'to'] as const) {
        const day = body[field];
        if (day !== undefined && !isDay(day))
          return answer(400, { errorToken: 'malformedRequest', errorDescription: `${field}: not a calendar day`, field });
      }
      if (body.from && body.to && body.to < body.from)
        return answer(400, {
          errorToken: 'malformedRequest',
          errorDescription: 'to: the range ends before it starts',
          field: 'to',
        });
      if (body.supplier === 'unsortable')
        return answer(406, {
          errorToken: 'qualitySearchSortUnknown',
          errorDescription: 'The search sorts by inspectedAt',
          field: 'sortBy',
        });
      return answer(200, nothingFound);
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

function input(name: string): HTMLInputElement {
  return screen.getByRole('textbox', { name });
}

/** The texts the input is described by (its description and error). */
function describedBy(element: HTMLElement): string[] {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '');
}

/** Fills the filters in and applies them. */
function search(filters: Record<string, string>) {
  for (const [name, value] of Object.entries(filters)) fireEvent.change(input(name), { target: { value } });
  fireEvent.click(screen.getByRole('button', { name: 'Search' }));
}

describe('the quality search filters', () => {
  it('show a day the calendar does not have on its input, and do not send it', async () => {
    renderListScreen(<QualityRoute />, '/quality');
    await waitFor(() => expect(searches).toHaveLength(1));
    search({ 'From day (YYYY-MM-DD)': '2026-02-30' });

    const from = input('From day (YYYY-MM-DD)');
    await waitFor(() => expect(from.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(from)).toContain('Not a day of the calendar (YYYY-MM-DD)');
    expect(input('To day (YYYY-MM-DD)').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(searches.some((body) => 'from' in body)).toBe(false);

    // corrected, it is searched and the message goes
    search({ 'From day (YYYY-MM-DD)': '2026-02-28' });
    await waitFor(() => expect(searches.at(-1)).toMatchObject({ from: '2026-02-28' }));
    expect(from.getAttribute('aria-invalid')).not.toBe('true');
  });

  it("show the server's refusal of a filter on that filter's input, not as an alert for the whole screen", async () => {
    renderListScreen(<QualityRoute />, '/quality');
    await waitFor(() => expect(searches).toHaveLength(1));
    search({ 'From day (YYYY-MM-DD)': '2026-03-10', 'To day (YYYY-MM-DD)': '2026-03-01' });

    const to = input('To day (YYYY-MM-DD)');
    await waitFor(() => expect(to.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(to)).toContain('The request is malformed');
    expect(input('From day (YYYY-MM-DD)').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(searches.at(-1)).toMatchObject({ from: '2026-03-10', to: '2026-03-01' });

    // a refusal that names no input of the form is shown for the whole screen
    search({ 'From day (YYYY-MM-DD)': '', 'To day (YYYY-MM-DD)': '', Supplier: 'unsortable' });
    expect((await screen.findByRole('alert')).textContent).toContain('The search cannot be sorted by this field');
    expect(input('To day (YYYY-MM-DD)').getAttribute('aria-invalid')).not.toBe('true');
  });

  it('offer "Any result" while no result is chosen, as the other filter lists do', () => {
    renderListScreen(<QualityRoute />, '/quality');
    const result = screen.getAllByLabelText('Result').find((element) => element instanceof HTMLInputElement);
    expect(result?.getAttribute('placeholder')).toBe('Any result');
  });
});
