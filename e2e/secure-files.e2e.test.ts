import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen, createUser, freshPage, launchBrowser, logInAs, logInAsAdmin } from './support/browser';
import { createGroup, expectHiddenFrom, openSecureFiles } from './support/secure-files';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

describe('console: secure files', () => {
  let browser: Browser;
  let workDir: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-secure-files-'));
  });
  afterAll(async () => {
    await browser.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('a user uploads into a folder shared with their group; a user of another group cannot see it', async () => {
    const stamp = Date.now().toString(36);
    const designer = await createUser();
    const supplier = await createUser();
    const designers = `E2E designers ${stamp}`;
    await createGroup(designers, [designer.username]);
    await createGroup(`E2E suppliers ${stamp}`, [supplier.username]);
    const folderName = `Drawings ${stamp}`;

    // the ADMIN creates a top-level folder and shares it with the designers
    const admin = await freshPage(browser);
    await logInAsAdmin(admin.page);
    await openSecureFiles(admin.page);
    await checkScreen(admin.page, 'secure-files');
    await admin.page.getByRole('button', { name: 'New folder' }).click();
    const dialog = admin.page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill(folderName);
    await dialog.getByLabel('Description').fill('Shop drawings');
    await dialog.getByRole('textbox', { name: 'Shared with' }).fill(designers);
    await admin.page.getByRole('option', { name: designers }).click();
    await dialog.getByLabel('Folder name').click(); // closes the group list, which stays open for more picks
    await expect.poll(() => admin.page.getByRole('option', { name: designers }).count(), settle).toBe(0);
    await checkScreen(admin.page, 'secure-files-new-folder');
    await dialog.getByRole('button', { name: 'Create folder' }).click();
    await admin.page.getByText(`Folder ${folderName} created`).waitFor(settle);
    const folderRow = admin.page.locator(`tr[data-node-name="${folderName}"]`);
    await folderRow.getByText(designers).waitFor(settle);
    await admin.context.close();

    // a designer opens it from the tree, uploads through the tray and by dropping a file
    const { context, page } = await freshPage(browser);
    await logInAs(page, designer);
    await openSecureFiles(page);
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: folderName }).click();
    await page.getByRole('heading', { name: folderName, level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'Secure files' }).waitFor();
    const drawing = path.join(workDir, 'bracket drawing.pdf');
    fs.writeFileSync(drawing, Buffer.alloc(256 * 1024, 'drawing '));
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Upload files' }).click(),
    ]);
    await chooser.setFiles(drawing);
    await page.locator('[data-upload-status="finished"]').filter({ hasText: 'bracket drawing.pdf' }).waitFor({ timeout: 60_000 });
    await page.locator('tr[data-node-name="bracket drawing.pdf"]').waitFor(settle);
    await checkScreen(page, 'secure-files-folder');

    const dropped = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped notes'], 'notes.txt', { type: 'text/plain' }));
      return transfer;
    });
    const dropzone = page.getByTestId('secure-files-dropzone');
    await dropzone.dispatchEvent('dragenter', { dataTransfer: dropped });
    await dropzone.dispatchEvent('drop', { dataTransfer: dropped });
    await page.locator('tr[data-node-name="notes.txt"]').waitFor(settle);

    // the description, a download, a delete with confirmation
    await page.getByRole('button', { name: 'Edit notes.txt' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit notes.txt' });
    await edit.getByLabel('Description').fill('Meeting notes');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-node-name="notes.txt"]').getByText('Meeting notes').waitFor(settle);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download notes.txt' }).click(),
    ]);
    expect(fs.readFileSync((await download.path())!, 'utf8')).toBe('dropped notes');
    await page.getByRole('button', { name: 'Delete notes.txt' }).click();
    await page.getByRole('dialog', { name: 'Delete file' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.locator('tr[data-node-name="notes.txt"]').count(), settle).toBe(0);
    const folderUrl = page.url();
    await context.close();

    // a supplier sees neither the folder nor, through its address, its files
    await expectHiddenFrom(browser, supplier, { name: folderName, url: folderUrl }, 'bracket drawing.pdf', 'secure-files-hidden');
  });
});
