import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderListScreen } from '../../../test/list-screen';
import { AuditRoute } from '../routes/audit-route';
import { PartsRoute } from '../routes/parts-route';

const emptyPage = { data: [], pageNum: 1, numberOfItems: 10, totalNumOfPages: 0, totalNumOfItems: 0 };
const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

const bracket = {
  dsiId: '0b0c7c44-7c55-4c9e-8f4e-6a5cf0a1d002',
  designName: 'Bracket',
  description: '',
  companyName: 'Acme',
  multiPlaten: false,
  displayImage: null,
  version: 1,
  dateCreated: '2026-11-01T00:00:00.000Z',
  dateModified: '2026-11-01T00:00:00.000Z',
  createdBy: 'admin',
  latestDsiVersion: 1,
};

/** The list calls sent (their address), answered as the server does. */
let calls: URL[];

beforeEach(() => {
  calls = [];
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const called = new URL(url, 'http://localhost');
      const { pathname, searchParams } = called;
      if (pathname.endsWith('/list')) calls.push(called);
      if (pathname === '/ui/part/list') {
        // a malformed identifier is its own token on its field (420); a serial number too long is malformed (400, no field)
        if (searchParams.get('dsiId') === 'nope')
          return answer(420, {
            errorToken: 'packageNotPresent',
            errorDescription: 'The design package does not exist',
            field: 'dsiId',
          });
        if ((searchParams.get('serialNumber') ?? '').length > 20)
          return answer(400, { errorToken: 'malformedRequest', errorDescription: 'querystring/serialNumber: Too big' });
        return answer(200, emptyPage);
      }
      if (pathname === '/ui/package/list') {
        const name = (searchParams.get('name') ?? '').toLowerCase();
        const found = 'bracket'.includes(name) ? [bracket] : [];
        return answer(200, { ...emptyPage, data: found, totalNumOfPages: 1, totalNumOfItems: found.length });
      }
      if (pathname === '/ui/audit/list') {
        const from = searchParams.get('from');
        const to = searchParams.get('to');
        if (from && to && to < from)
          return answer(400, {
            errorToken: 'malformedRequest',
            errorDescription: 'to: the range ends before it starts',
            field: 'to',
          });
        return answer(200, emptyPage);
      }
      return answer(500, {});
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

/** The texts the input is described by (its description and error). */
function describedBy(element: HTMLElement): string[] {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '');
}

function filter(name: string, value: string) {
  fireEvent.change(screen.getByRole('textbox', { name }), { target: { value } });
}

describe('the filters of a trace list', () => {
  it("show the server's refusal naming a filter under that filter's input, not as an alert for the whole screen", async () => {
    renderListScreen(<PartsRoute />, '/parts');
    await waitFor(() => expect(calls).toHaveLength(1));
    filter('Design package ID', 'nope');
    fireEvent.click(screen.getByRole('button', { name: 'Apply filters' }));

    const dsiId = screen.getByRole('textbox', { name: 'Design package ID' });
    await waitFor(() => expect(dsiId.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(dsiId)).toContain('The design package does not exist');
    expect(screen.getByRole('textbox', { name: 'Serial number (exact)' }).getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();

    // a refusal that names no filter stays an alert over the list
    filter('Design package ID', '');
    filter('Serial number (exact)', 'S'.repeat(21));
    fireEvent.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The request is malformed');
    expect(dsiId.getAttribute('aria-invalid')).not.toBe('true');
  });

  it("suggest this server's designs by name in the design filter and filter by the picked design's id", async () => {
    renderListScreen(<PartsRoute />, '/parts');
    await waitFor(() => expect(calls).toHaveLength(1));
    const dsiId = screen.getByRole('textbox', { name: 'Design package ID' });
    fireEvent.focus(dsiId);
    fireEvent.change(dsiId, { target: { value: 'brack' } });
    await waitFor(() =>
      expect(
        calls.some(({ pathname, searchParams }) => pathname === '/ui/package/list' && searchParams.get('name') === 'brack'),
      ).toBe(true),
    );
    fireEvent.click(await screen.findByRole('option', { name: `Bracket (${bracket.dsiId})` }));
    await waitFor(() => expect((dsiId as HTMLInputElement).value).toBe(bracket.dsiId));
    fireEvent.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() =>
      expect(
        calls
          .filter(({ pathname }) => pathname === '/ui/part/list')
          .at(-1)
          ?.searchParams.get('dsiId'),
      ).toBe(bracket.dsiId),
    );
  });

  it('show a day the calendar does not have under its input, and do not send it', async () => {
    renderListScreen(<AuditRoute />, '/audit?fromDay=2026-02-30&toDay=2026-03-01');
    const from = screen.getByLabelText('From (day)');
    await waitFor(() => expect(from.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(from)).toContain('Not a day of the calendar (YYYY-MM-DD)');
    expect(screen.getByLabelText('To (day, included)').getAttribute('aria-invalid')).not.toBe('true');
    await waitFor(() => expect(calls.length).toBeGreaterThan(0));
    expect(
      calls.every(({ searchParams }) => !searchParams.has('from') && searchParams.get('to') === '2026-03-02T00:00:00.000Z'),
    ).toBe(true);
  });

  it("show the server's refusal of a day under the day's input, though the call names it otherwise", async () => {
    renderListScreen(<AuditRoute />, '/audit?fromDay=2026-03-10&toDay=2026-03-01');
    const to = screen.getByLabelText('To (day, included)');
    await waitFor(() => expect(to.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(to)).toContain('The request is malformed');
    expect(screen.getByLabelText('From (day)').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('the page of a trace list', () => {
  it('past the end of the list (a page the address names that no longer exists) is put right to the last, not shown empty', async () => {
    // the parts answer no rows whatever the page: the last page is the first
    renderListScreen(<PartsRoute />, '/parts?pageNum=5&serialNumber=S1');
    await waitFor(() => expect(calls.map((call) => call.searchParams.get('pageNum'))).toEqual(['5', '1']), {
      timeout: 10_000,
    });
    expect(calls.every((call) => call.searchParams.get('serialNumber') === 'S1')).toBe(true);
  });
});
