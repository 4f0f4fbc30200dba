import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStorageEmulators, type StorageEmulators } from '../apps/server/test/helpers/storage-emulators';
import { adminToken, api, baseUrl, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';

const settle = { timeout: 20_000 };

interface ProviderState {
  identifier: string | null;
  configured: boolean;
  move: { state: string; moved: number; total: number } | null;
}

async function providerState(): Promise<ProviderState> {
  return (await api<ProviderState>('GET /ui/admin/storage/provider', { token: await adminToken() })).body;
}

async function uploadFile(name: string, content: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const response = await fetch(`${baseUrl()}/ui/storage/dsi/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await adminToken()}` },
    body: form,
  });
  return response.status;
}

async function fetchFile(name: string): Promise<string> {
  const response = await fetch(`${baseUrl()}/ui/storage/dsi/fetch/${encodeURIComponent(name)}`, {
    headers: { Authorization: `Bearer ${await adminToken()}` },
  });
  return response.text();
}

describe('console: storage settings and the design archive (ADMIN)', () => {
  let browser: Browser;
  let emulators: StorageEmulators;
  beforeAll(async () => {
    emulators = await startStorageEmulators();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    // leave the shared server on its local disk, with every file moved back, before the emulators go
    try {
      const back = await api<ProviderState>('POST /ui/admin/storage/provider', {
        token: await adminToken(),
        body: { identifier: 'local' },
      });
      for (let waited = 0; back.status === 200 && waited < settle.timeout; waited += 250) {
        if ((await providerState()).move?.state !== 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      await emulators?.stop();
    }
  });

  it('chooses the local disk, then S3: the files move in the background and the credentials are never shown again', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Storage' }).click();
    await page.getByRole('heading', { name: 'Storage', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'Choose a storage provider' });
    await form.getByRole('button', { name: 'Test and save' }).click();
    await page.getByText('Local disk is now the storage provider.').waitFor();
    await page.getByTestId('storage-current-provider').getByText('Files are stored in: Local disk.').waitFor();
    await page.getByTestId('storage-types').locator('[data-storage-type="dsi"]').waitFor();
    await checkScreen(page, 'storage-local');

    const typeForm = page.getByRole('form', { name: 'Add or change a storage type' });
    await typeForm.getByLabel('Name').fill('e2e-reports');
    await typeForm.getByLabel('Path').fill('../escape');
    await typeForm.getByRole('button', { name: 'Save type' }).click();
    await page.getByTestId('storage-type-error').waitFor();
    await typeForm.getByLabel('Path').fill('quality/reports');
    await typeForm.getByRole('button', { name: 'Save type' }).click();
    await page.getByText('The storage type e2e-reports was saved.').waitFor();
    await page.locator('[data-storage-type="e2e-reports"]').getByText('quality/reports').waitFor();

    expect(await uploadFile('e2e design.dsi', 'moved by the browser test')).toBe(200);

    await form.getByRole('textbox', { name: 'Provider' }).click();
    await page.getByRole('option', { name: 'Amazon S3 (or S3-compatible)' }).click();
    const place = emulators.s3Credentials;
    await form.getByLabel('Region').fill(place.awsStorageRegion!);
    await form.getByLabel('Access key ID').fill(place.awsAccessKeyId!);
    await form.getByLabel('Secret access key').fill(place.awsSecretAccessKey!);
    await form.getByLabel('Bucket').fill(place.awsStorageBucket!);
    await form.getByLabel('Endpoint (S3-compatible services only)').fill('http://10.255.255.1:9000');
    await form.getByRole('button', { name: 'Test and save' }).click();
    await page.getByTestId('storage-provider-error').waitFor();
    await checkScreen(page, 'storage-refused');

    await form.getByLabel('Endpoint (S3-compatible services only)').fill(place.awsStorageEndpoint!);
    await form.getByRole('button', { name: 'Test and save' }).click();
    await page.getByTestId('storage-move').waitFor();
    await page.getByTestId('storage-current-provider').getByText('Amazon S3 (or S3-compatible)', { exact: false }).waitFor();
    // secrets are cleared from the form and never answered by the server
    expect(await form.getByLabel('Secret access key').count()).toBe(1);
    await page.getByText('the stored files are being moved to it', { exact: false }).waitFor();
    expect(await form.getByLabel('Secret access key').inputValue()).toBe('');
    expect(JSON.stringify(await providerState())).not.toContain(place.awsSecretAccessKey!);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return page.getByTestId('storage-move').getAttribute('data-state');
      }, settle)
      .toBe('done');
    await page.getByText(/of \d+ files moved/).waitFor();
    await checkScreen(page, 'storage-moved');
    expect(await fetchFile('e2e design.dsi')).toBe('moved by the browser test');

    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByTestId('setup-storage').getByText('Files are stored in: Amazon S3 (or S3-compatible).').waitFor();
    await context.close();
  });

  it('shows the design archive', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Design archive' }).click();
    await page.getByRole('heading', { name: 'Design archive', level: 1 }).waitFor();
    await page.getByTestId('das-table').waitFor();
    await checkScreen(page, 'das');
    await context.close();
  });
});
