import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setSessionToken } from '../../../lib/session-token';
import { setTestConsoleConfig } from '../../../test/console-config';
import { describedBy } from '../../../test/described-by';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { StorageProviderForm } from './storage-provider-form';

/** The S3 inputs the form shows (English labels), each with a value the server would take. */
const awsInputs = {
  Region: 'eu-central-1',
  'Access key ID': 'AKIAEXAMPLE',
  'Secret access key': 'secret',
  Bucket: 'manifold-files',
} as const;

/** The chosen S3 provider's settings as the server answers them (no key). */
const chosenS3 = {
  awsStorageRegion: 'eu-west-1',
  awsStorageBucket: 'saved-bucket',
  awsStorageEndpoint: 'http://minio.local:9000',
};

/**
 * The server: S3 is the selected provider; choosing one is refused with `body` and `status`.
 * Answers the selection calls it got.
 */
function refuseSelection(body: unknown, status: number): { selections: () => number } {
  let selections = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const { pathname } = new URL(url, 'http://localhost');
      if (pathname === '/ui/admin/storage/provider/list') return Response.json({ data: ['local', 'aws', 'azure'] });
      if (pathname !== '/ui/admin/storage/provider') return new Response('{}', { status: 404 });
      if (init?.method !== 'POST')
        return Response.json({ identifier: 'aws', configured: true, credentials: chosenS3, move: null });
      selections += 1;
      return Response.json(body, { status });
    }),
  );
  return { selections: () => selections };
}

function renderForm(locale: TestLocale = 'en') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <StorageProviderForm />
    </QueryClientProvider>,
    { locale },
  );
}

/** The input labelled `label` (a required input's label ends with its asterisk). */
function input(label: string): HTMLInputElement {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return screen.getByLabelText(new RegExp(`^${escaped}\\s*\\*?$`));
}

async function fillAndSave(values: Record<string, string> = {}) {
  await waitFor(() => expect(input('Region')).toBeDefined());
  for (const [label, value] of Object.entries({ ...awsInputs, ...values })) {
    fireEvent.change(input(label), { target: { value } });
  }
  fireEvent.click(screen.getByRole('button', { name: 'Test and save' }));
}

beforeEach(() => {
  setTestConsoleConfig();
  setSessionToken('token-1');
});
afterEach(() => vi.unstubAllGlobals());

describe('the storage provider form', () => {
  it.each([
    ['en', 'Files are stored in: Amazon S3 (or S3-compatible).', ['Region', 'Bucket', 'Endpoint (S3-compatible services only)']],
    ['zh', null, ['区域', '存储桶', '端点（仅限兼容 S3 的服务）']],
  ] as const)(
    'shows the chosen provider with its region, bucket and endpoint, never a key (%s)',
    async (locale, current, labels) => {
      refuseSelection({}, 500);
      renderForm(locale);
      const rows = await screen.findByTestId('storage-provider-settings');
      if (current) expect(screen.getByTestId('storage-current-provider').textContent).toBe(current);
      expect(
        [...rows.querySelectorAll('tr')].map((row) => [
          row.querySelector('th')?.textContent,
          row.querySelector('td')?.textContent,
        ]),
      ).toEqual([
        [labels[0], 'eu-west-1'],
        [labels[1], 'saved-bucket'],
        [labels[2], 'http://minio.local:9000'],
      ]);
    },
  );

  it('shows a refusal of a credential (420 naming it) on that input', async () => {
    refuseSelection(
      {
        errorToken: 'storageProviderConfigurationNotValid',
        errorDescription: 'The host 10.255.255.1 is not in STORAGE_ENDPOINT_ALLOWED_HOSTS',
        field: 'credentials.awsStorageEndpoint',
      },
      420,
    );
    renderForm();
    await fillAndSave({ 'Endpoint (S3-compatible services only)': 'http://10.255.255.1:9000' });
    const endpoint = input('Endpoint (S3-compatible services only)');
    await waitFor(() => expect(describedBy(endpoint)).toBe('The storage provider refused these settings.'));
    expect(endpoint.getAttribute('aria-invalid')).toBe('true');
    expect(input('Bucket').getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.queryByTestId('storage-provider-error')).toBeNull();
  });

  it.each([
    ['en', 'Bucket', 'The request is malformed'],
    ['zh', '存储桶', '请求格式不正确'],
  ] as const)('shows a request its schema refuses (400 naming credentials.x) on that input (%s)', async (locale, label, said) => {
    refuseSelection(
      {
        errorToken: 'malformedRequest',
        errorDescription: 'body/credentials/awsStorageBucket: Too big: expected string to have <=63 characters',
        field: 'credentials.awsStorageBucket',
      },
      400,
    );
    renderForm(locale);
    await waitFor(() => expect(input(label)).toBeDefined());
    const labels = { 区域: 'eu-central-1', '访问密钥 ID': 'AKIAEXAMPLE', 秘密访问密钥: 'secret', 存储桶: 'manifold-files' };
    for (const [name, value] of Object.entries(locale === 'en' ? awsInputs : labels)) {
      fireEvent.change(input(name), { target: { value } });
    }
    fireEvent.click(screen.getByRole('button', { name: locale === 'en' ? 'Test and save' : '测试并保存' }));
    const bucket = input(label);
    await waitFor(() => expect(describedBy(bucket)).toBe(said));
    expect(bucket.getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('storage-provider-error')).toBeNull();
  });

  it('checks a too-long value before sending it, and says so on its input, not as a failure of the console', async () => {
    const server = refuseSelection({}, 500);
    renderForm();
    await fillAndSave({ Region: 'r'.repeat(65) });
    const region = input('Region');
    await waitFor(() => expect(describedBy(region)).toBe('The request is malformed'));
    expect(region.getAttribute('aria-invalid')).toBe('true');
    expect(server.selections()).toBe(0);
    expect(screen.queryByText(/Oops/)).toBeNull();
    expect(screen.queryByTestId('storage-provider-error')).toBeNull();
  });

  it('says a refusal about no input above the form, and one about an input it does not show by its label', async () => {
    refuseSelection(
      {
        data: [
          { errorToken: 'storageProviderNotAvailable', errorDescription: 'The storage provider could not be reached' },
          {
            errorToken: 'storageProviderConfigurationNotValid',
            errorDescription: 'credentials.azureEndpoint: not an address',
            field: 'credentials.azureEndpoint',
          },
        ],
      },
      418,
    );
    renderForm();
    await fillAndSave();
    const alert = await screen.findByTestId('storage-provider-error');
    expect(alert.textContent).toBe(
      'The storage provider could not be reached. Endpoint (Azurite or a sovereign cloud only): The storage provider refused these settings.',
    );
    expect(alert.textContent).not.toContain('azureEndpoint');
    expect(input('Region').getAttribute('aria-invalid')).not.toBe('true');
  });
});
