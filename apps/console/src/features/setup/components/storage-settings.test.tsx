import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { setTestConsoleConfig } from '../../../test/console-config';
import { describedBy } from '../../../test/described-by';
import { renderWithProviders } from '../../../test/render';
import { StorageSettings } from './storage-settings';

/** The server: one storage type, the archive off; saving types and switching the archive are refused with `body` and `status`. */
function refuse(path: '/ui/admin/storage/type/list' | '/ui/admin/das', body: unknown, status: number) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (init?.method === 'POST' && pathname === path) return Response.json(body, { status });
      if (pathname === '/ui/admin/storage/provider/list') return Response.json({ data: ['local'] });
      if (pathname === '/ui/admin/storage/provider')
        return Response.json({ identifier: 'local', configured: true, credentials: null, move: null });
      if (pathname === '/ui/admin/storage/type/list')
        return Response.json({ data: [{ name: 'dsi', path: 'dsi', configured: true }] });
      if (pathname === '/ui/admin/das') return Response.json({ enabled: false });
      return new Response('{}', { status: 404 });
    }),
  );
}

function renderSettings() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <StorageSettings />
    </QueryClientProvider>,
  );
}

/** The storage type form's input labelled `label`. */
function typeInput(label: string): HTMLInputElement {
  return within(screen.getByRole('form', { name: 'Add or change a storage type' })).getByLabelText(
    new RegExp(`^${label}\\s*\\*?$`),
  );
}

async function saveType(name: string, path: string) {
  await waitFor(() => expect(typeInput('Name')).toBeDefined());
  fireEvent.change(typeInput('Name'), { target: { value: name } });
  fireEvent.change(typeInput('Path'), { target: { value: path } });
  fireEvent.click(screen.getByRole('button', { name: 'Save type' }));
}

beforeEach(() => {
  setTestConsoleConfig();
  setSessionToken('token-1');
});
afterEach(() => vi.unstubAllGlobals());

describe('the storage type form', () => {
  it('shows a refusal of the path (420 naming data[0].path) on the path input', async () => {
    refuse(
      '/ui/admin/storage/type/list',
      {
        errorToken: 'storageTypeNotConfigured',
        errorDescription: 'A storage type needs a relative path of letters, digits, ".", "_" and "-" (no "..")',
        field: 'data[0].path',
      },
      420,
    );
    renderSettings();
    await saveType('reports', '../escape');
    const path = typeInput('Path');
    await waitFor(() => expect(path.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(path)).toBe('This storage type is not configured, or its name or path is not valid.');
    expect(typeInput('Name').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByTestId('storage-type-error')).toBeNull();
  });

  it('places each of several refusals (418) on its input, a schema refusal (data[0].name) too, and one about no input above the form', async () => {
    refuse(
      '/ui/admin/storage/type/list',
      {
        data: [
          { errorToken: 'malformedRequest', errorDescription: 'data[0].name: Too big', field: 'data[0].name' },
          { errorToken: 'storageTypeNotConfigured', errorDescription: 'bad path', field: 'data[0].path' },
          { errorToken: 'storageNotEnabled', errorDescription: 'Storage is not enabled' },
        ],
      },
      418,
    );
    renderSettings();
    await saveType('reports', '../escape');
    const alert = await screen.findByTestId('storage-type-error');
    expect(describedBy(typeInput('Name'))).toBe('The request is malformed');
    expect(describedBy(typeInput('Path'))).toBe('This storage type is not configured, or its name or path is not valid.');
    expect(alert.textContent).toBe('Storage is not enabled: an administrator must choose a storage provider first.');
  });
});

describe('the design archive switch', () => {
  it('shows a refusal naming its value (400 naming enabled) at the switch, nothing above it', async () => {
    refuse(
      '/ui/admin/das',
      { errorToken: 'malformedRequest', errorDescription: 'enabled: Invalid input', field: 'enabled' },
      400,
    );
    renderSettings();
    const toggle = await screen.findByRole('switch', { name: 'Design archive service enabled' });
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-invalid')).toBe('true'));
    expect(describedBy(toggle)).toBe('The request is malformed');
    expect(screen.queryByTestId('das-error')).toBeNull();
  });

  it('says a refusal about no value above the switch', async () => {
    refuse('/ui/admin/das', { errorToken: 'storageNotEnabled', errorDescription: 'Storage is not enabled' }, 420);
    renderSettings();
    fireEvent.click(await screen.findByRole('switch', { name: 'Design archive service enabled' }));
    expect((await screen.findByTestId('das-error')).textContent).toBe(
      'Storage is not enabled: an administrator must choose a storage provider first.',
    );
    expect(screen.getByRole('switch', { name: 'Design archive service enabled' }).getAttribute('aria-invalid')).not.toBe('true');
  });
});
