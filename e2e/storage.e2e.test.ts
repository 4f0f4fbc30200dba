import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../apps/server/src/storage/s3-storage';
import { startStorageEmulators, type StorageEmulators } from '../apps/server/test/helpers/storage-emulators';
import {
  adminToken,
  api,
  baseUrl,
  checkScreen,
  createUser,
  freshPage,
  launchBrowser,
  logInAs,
  logInAsAdmin,
} from './support/browser';
import { createGroup, expectHiddenFrom, openSecureFiles } from './support/secure-files';

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

/** The keys of the objects in the emulator's bucket. */
async function bucketKeys(emulators: StorageEmulators): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const object of new S3Storage(emulators.s3).list()) keys.add(object.key);
  return keys;
}

describe('console: storage settings, secure files on S3 and the design archive (ADMIN)', () => {
  let browser: Browser;
  let emulators: StorageEmulators;
  let workDir: string;
  beforeAll(async () => {
    emulators = await startStorageEmulators();
    browser = await launchBrowser();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-storage-'));
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(workDir, { recursive: true, force: true });
    // leave the shared server on its local disk (what it starts with: other specs' files are there),
    // with every file moved back, before the emulators go
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

  it('an admin chooses the local disk, then S3 (files move, credentials never shown again); a user uploads into a folder shared with their group, a user of another group cannot see it', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Storage', exact: true }).click();
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
    // a path outside the storage is refused on its input, not above the form
    await expect.poll(() => typeForm.getByLabel('Path').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('storage-type-error').count()).toBe(0);
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
    const endpoint = form.getByLabel('Endpoint (S3-compatible services only)');
    await endpoint.fill('http://10.255.255.1:9000');
    await form.getByRole('button', { name: 'Test and save' }).click();
    // an endpoint outside STORAGE_ENDPOINT_ALLOWED_HOSTS is refused on its input, not above the form
    await expect.poll(() => endpoint.getAttribute('aria-invalid')).toBe('true');
    await form.getByText('The storage provider refused these settings.').waitFor();
    expect(await page.getByTestId('storage-provider-error').count()).toBe(0);
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
    expect(JSON.stringify(await providerState())).not.toContain(place.awsAccessKeyId!);
    // the saved provider's settings that are no secret are shown under it, the keys nowhere
    const settings = page.getByTestId('storage-provider-settings');
    await expect
      .poll(() => settings.locator('tr').evaluateAll((rows) => rows.map((row) => row.textContent)))
      .toEqual([
        `Region${place.awsStorageRegion!}`,
        `Bucket${place.awsStorageBucket!}`,
        `Endpoint (S3-compatible services only)${place.awsStorageEndpoint!}`,
      ]);
    expect(await page.getByText(place.awsAccessKeyId!).count()).toBe(0);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return page.getByTestId('storage-move').getAttribute('data-state');
      }, settle)
      .toBe('done');
    await page.getByText(/of \d+ files? moved/).waitFor();
    await checkScreen(page, 'storage-moved');
    expect(await fetchFile('e2e design.dsi')).toBe('moved by the browser test');

    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByTestId('setup-storage').getByText('Files are stored in: Amazon S3 (or S3-compatible).').waitFor();

    // with S3 in force, the admin creates a folder shared with one group and labelled FCI
    const stamp = Date.now().toString(36);
    const designer = await createUser();
    const supplier = await createUser();
    const designers = `E2E S3 designers ${stamp}`;
    await createGroup(designers, [designer.username]);
    await createGroup(`E2E S3 suppliers ${stamp}`, [supplier.username]);
    const folderName = `S3 drawings ${stamp}`;
    await openSecureFiles(page);
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill(folderName);
    await dialog.getByRole('textbox', { name: 'Shared with' }).fill(designers);
    await page.getByRole('option', { name: designers }).click();
    await dialog.getByLabel('Folder name').click(); // closes the group list, which stays open for more picks
    await expect.poll(() => page.getByRole('option', { name: designers }).count(), settle).toBe(0);
    await dialog.getByRole('textbox', { name: 'Label (CUI, FCI)' }).click();
    await page.getByRole('option', { name: 'FCI' }).click();
    await checkScreen(page, 'secure-files-labelled-folder-form');
    await dialog.getByRole('button', { name: 'Create folder' }).click();
    await page.getByText(`Folder ${folderName} created`).waitFor(settle);
    const folderRow = page.locator(`tr[data-node-name="${folderName}"]`);
    await folderRow.getByText(designers).waitFor(settle);
    await folderRow.getByText('FCI', { exact: true }).waitFor(settle);
    await context.close();

    // a designer uploads through the upload tray: the encrypted file lands in the bucket
    const before = await bucketKeys(emulators);
    const designerPage = await freshPage(browser);
    await logInAs(designerPage.page, designer);
    await openSecureFiles(designerPage.page);
    await designerPage.page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: folderName }).click();
    await designerPage.page.getByRole('heading', { name: folderName, level: 1 }).waitFor();
    const drawing = path.join(workDir, 'turbine drawing.pdf');
    fs.writeFileSync(drawing, Buffer.alloc(96 * 1024, 'drawing '));
    const [chooser] = await Promise.all([
      designerPage.page.waitForEvent('filechooser'),
      designerPage.page.getByRole('button', { name: 'Upload files' }).click(),
    ]);
    await chooser.setFiles(drawing);
    await designerPage.page
      .locator('[data-upload-status="finished"]')
      .filter({ hasText: 'turbine drawing.pdf' })
      .waitFor({ timeout: 60_000 });
    const fileRow = designerPage.page.locator('tr[data-node-name="turbine drawing.pdf"]');
    await fileRow.waitFor(settle);
    await fileRow.getByText('FCI', { exact: true }).waitFor(settle);
    const added = [...(await bucketKeys(emulators))].filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    const folderUrl = designerPage.page.url();
    await designerPage.context.close();

    // a supplier sees neither the folder nor, through its address, the file
    await expectHiddenFrom(browser, supplier, { name: folderName, url: folderUrl }, 'turbine drawing.pdf');
  });

  it('uploads a design package into the design archive through the upload tray', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Design archive' }).click();
    await page.getByRole('heading', { name: 'Design archive', level: 1 }).waitFor();
    await page.getByTestId('das-table').waitFor();
    await checkScreen(page, 'das');

    const dsiId = randomUUID();
    const manifest = JSON.stringify({
      companyName: 'Northwind Aero',
      dateCreated: '2026-10-01T08:00:00.000Z',
      description: 'Cooling channels',
      designName: 'E2E turbine blade',
      deviceTemplates: [],
      dsiId,
      dsiVersion: 2,
      files: [],
      manageUrl: 'https://manage.northwind.example',
      manifestVersion: 1,
      multiPlaten: false,
      packageVersion: 4,
      steps: [],
    });
    const packageFile = path.join(workDir, 'turbine-blade.dsi.json');
    fs.writeFileSync(
      packageFile,
      JSON.stringify({
        dsiId,
        dsiVersion: 2,
        publicKeySN: '5a3f01',
        keyRoleSN: '77e2',
        manage_url: 'https://manage.northwind.example',
        digestMethod: 'SHA-256',
        digestValue: createHash('sha256').update(manifest).digest('hex'),
        signature: 'eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl',
        manifest,
      }),
    );
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Upload design package' }).click(),
    ]);
    await chooser.setFiles(packageFile);
    await page.getByText('E2E turbine blade (build 2) added to the design archive').waitFor(settle);
    const row = page.locator(`tr[data-dsi-id="${dsiId}"]`);
    await row.getByText('E2E turbine blade').waitFor(settle);
    await row.getByText('5a3f01').waitFor(settle);

    // the same package again is refused with the reason
    const [again] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Upload design package' }).click(),
    ]);
    await again.setFiles(packageFile);
    await page.getByText('The design archive already holds this DSI version', { exact: false }).first().waitFor(settle);
    await checkScreen(page, 'das-uploaded');
    await context.close();
  });
});
