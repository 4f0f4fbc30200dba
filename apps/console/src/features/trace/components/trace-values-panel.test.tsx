import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { renderListScreen } from '../../../test/list-screen';
import { TraceValuesPanel } from './trace-values-panel';

const page = (data: unknown[]) => ({ data, pageNum: 1, numberOfItems: 10, totalNumOfPages: 1, totalNumOfItems: data.length });

const buildTemplate = {
  id: '6f1f7d3e-4a1b-4c5d-8e9f-0a1b2c3d4e5f',
  typeId: '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  typeName: 'Build records',
  name: 'Chamber',
  description: '',
  dateCreated: '2026-11-30T12:00:00.000Z',
  parameters: [
    {
      parameterId: '8b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
      name: 'chamberTemperature',
      dataType: 'MANUAL_ENTRY',
      association: 'BUILD',
      units: 'C',
      low: 20,
      high: 80,
      required: false,
    },
  ],
};

/** A build's panel whose template list answers `templates`; no values, no machine data. */
function renderPanel(templates: unknown[]) {
  setSessionToken('token-1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/svp/list') return new Response(JSON.stringify(page(templates)), { status: 200 });
      if (pathname === '/ui/svp-value/list' || pathname === '/ui/dtl/list')
        return new Response(JSON.stringify(page([])), { status: 200 });
      return new Response('{}', { status: 500 });
    }),
  );
  renderListScreen(<TraceValuesPanel target={{ buildId: 'build-1' }} deviceId="device-1" />, '/builds/build-1');
}

afterEach(() => vi.unstubAllGlobals());

describe('the form recording a trace parameter value', () => {
  it('says that no template has a parameter for the page, and offers no empty picker or button', async () => {
    renderPanel([]);
    expect(
      await screen.findByText(
        'No trace parameter template has a parameter for this page. An administrator adds templates under Trace parameters.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Record a value' })).toBeTruthy();
    expect(screen.queryByRole('textbox', { name: 'Parameter' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Record value' })).toBeNull();
  });

  it("offers the templates' parameters of the page's kind", async () => {
    renderPanel([buildTemplate]);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Record value' })).toBeTruthy());
    expect(screen.getByRole('textbox', { name: 'Parameter' })).toBeTruthy();
    expect(screen.queryByText(/No trace parameter template has a parameter/)).toBeNull();
  });
});
