import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { ensureProvisioned } from './support/machines';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

interface PackageView {
  dsiId: string;
  version: number;
  description: string;
  steps: { workflowStepId: string; name: string; position: number }[];
  files: { fileId: string; fileName: string; sha256: string; size: number; isPublic: boolean }[];
  deviceTemplates: { deviceTemplateId: string; name: string }[];
  revisions: { dsiVersion: number; digestValue: string }[];
}

async function fetchPackage(dsiId: string): Promise<PackageView> {
  const { status, body } = await api<PackageView>(`GET /ui/package/fetch?dsiId=${dsiId}`, { token: await adminToken() });
  expect(status).toBe(200);
  return body;
}

/** Thirteen design packages named `<prefix> 01` to `<prefix> 13` (two pages of ten, in name order); answers the names. */
async function thirteenPackages(prefix: string): Promise<string[]> {
  const token = await adminToken();
  const names = Array.from({ length: 13 }, (_, i) => `${prefix} ${String(i + 1).padStart(2, '0')}`);
  for (const designName of names) {
    const created = await api('POST /ui/package/info', { token, body: { designName, companyName: 'Acme' } });
    expect(created.status).toBe(200);
  }
  return names;
}

async function chooseFile(page: Page, button: string, file: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: button }).click()]);
  await chooser.setFiles(file);
}

function template(low: number, high: number) {
  return {
    name: 'E2E printer settings',
    description: 'Bed temperature and layer height of the E2E printer',
    target: { manufacturer: 'Acme', model: 'X1' },
    parameterVersion: '1.0',
    parameters: [
      { parameterId: 'bedTemperature', type: 'integer', units: 'C', low, high, resetValue: 60, adjust: 'FREE' },
      { parameterId: 'material', type: 'choice', choicePresent: true, choiceList: ['PLA', 'PETG'], valueList: ['PLA'] },
    ],
  };
}

describe('console: design packages (ADMIN)', () => {
  let browser: Browser;
  let workDir: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    await ensureProvisioned();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-packages-'));
  });
  afterAll(async () => {
    await browser.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('creates a package, shows a version conflict, uploads a file with progress, imports a template, reorders steps and builds', async () => {
    const designName = `E2E bracket ${Date.now().toString(36)}`;
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Packages' }).click();
    await page.getByRole('heading', { name: 'Design packages', level: 1 }).waitFor();
    await checkScreen(page, 'packages');

    await page.getByRole('button', { name: 'New package' }).click();
    const dialog = page.getByRole('dialog', { name: 'New design package' });
    await dialog.getByRole('button', { name: 'New package' }).click();
    await expect.poll(() => dialog.getByLabel('Design name').getAttribute('aria-invalid'), settle).toBe('true');
    await dialog.getByLabel('Design name').fill(designName);
    await dialog.getByLabel('Company').fill('Acme');
    await dialog.getByLabel('Description').fill('A bracket for the e2e suite');
    await dialog.getByRole('button', { name: 'New package' }).click();
    await page.getByRole('heading', { name: designName, level: 1 }).waitFor();
    const dsiId = page.url().split('/packages/')[1] ?? '';
    expect(dsiId).toMatch(/^[0-9a-f-]{36}$/);
    await checkScreen(page, 'package-details');

    // Someone else saves first: this editor's save is refused and says so.
    const read = await fetchPackage(dsiId);
    const other = await api('POST /ui/package/info', {
      token: await adminToken(),
      body: { dsiId, version: read.version, description: 'Changed by a colleague' },
    });
    expect(other.status).toBe(200);
    await page.getByLabel('Description').fill('My edit');
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByTestId('version-conflict');
    await conflict.getByText('Someone else changed this package').waitFor();
    await checkScreen(page, 'package-version-conflict');
    await conflict.getByRole('button', { name: 'Reload the newest version' }).click();
    await expect.poll(() => page.getByLabel('Description').inputValue(), settle).toBe('Changed by a colleague');
    await page.getByLabel('Description').fill('Bracket, final');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`${designName} was saved`, { exact: false }).waitFor();
    expect((await fetchPackage(dsiId)).description).toBe('Bracket, final');

    // A real file, uploaded slowly enough to watch the tray's progress.
    await page.getByRole('tab', { name: /Files/ }).click();
    const content = randomBytes(3 * 1024 * 1024);
    const designFile = path.join(workDir, 'bracket.stl');
    fs.writeFileSync(designFile, content);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 1024 * 1024,
    });
    await chooseFile(page, 'Upload files…', designFile);
    const progress = page.getByRole('progressbar', { name: 'Upload progress of bracket.stl' });
    await page.waitForFunction(() => {
      const bar = document.querySelector('[role="progressbar"][aria-label="Upload progress of bracket.stl"]');
      const value = Number(bar?.getAttribute('aria-valuenow') ?? '0');
      return value > 0 && value < 100;
    });
    await checkScreen(page, 'package-upload-progress');
    await page.locator('[data-upload-status="finished"]').filter({ hasText: 'bracket.stl' }).waitFor({ timeout: 60_000 });
    expect(await progress.getAttribute('aria-valuenow')).toBe('100');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    const fileRow = page.locator('tr[data-file-name="bracket.stl"]');
    await fileRow.waitFor();
    const sha256 = createHash('sha256').update(content).digest('hex');
    await fileRow.getByText(sha256.slice(0, 12), { exact: false }).waitFor();
    const stored = (await fetchPackage(dsiId)).files.find((file) => file.fileName === 'bracket.stl');
    expect(stored).toMatchObject({ sha256, size: content.length, isPublic: false });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      fileRow.getByRole('button', { name: 'Download bracket.stl' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('bracket.stl');
    expect(
      createHash('sha256')
        .update(fs.readFileSync(await download.path()))
        .digest('hex'),
    ).toBe(sha256);

    await fileRow.getByRole('switch', { name: 'bracket.stl is public' }).click({ force: true });
    await expect.poll(async () => (await fetchPackage(dsiId)).files[0]?.isPublic, settle).toBe(true);
    await checkScreen(page, 'package-files');

    // Templates: an invalid one shows each problem with its path; a valid one is listed.
    await page.getByRole('tab', { name: /Device templates/ }).click();
    const invalid = path.join(workDir, 'invalid-template.json');
    fs.writeFileSync(invalid, JSON.stringify(template(120, 50)));
    await chooseFile(page, 'Import template (JSON)…', invalid);
    const problems = page.getByTestId('template-errors');
    await problems.getByText('parameters[0].low', { exact: true }).waitFor();
    await checkScreen(page, 'package-template-errors');
    const valid = path.join(workDir, 'printer-template.json');
    fs.writeFileSync(valid, JSON.stringify(template(50, 110)));
    await chooseFile(page, 'Import template (JSON)…', valid);
    await page.locator('tr[data-template-name="E2E printer settings"]').waitFor();

    // Steps: three added, reordered by dragging and with the keyboard buttons.
    await page.getByRole('tab', { name: /Workflow steps/ }).click();
    const addStep = async (type: 'Manual' | 'Device', name: string, instructions: string) => {
      await page.getByRole('button', { name: 'Add step' }).click();
      const form = page.getByRole('dialog', { name: 'Add a workflow step' });
      if (type === 'Device') {
        await form.getByRole('textbox', { name: 'Type' }).click();
        await page.getByRole('option', { name: 'Device' }).click();
        await form.getByRole('textbox', { name: 'Device template' }).click();
        await page.getByRole('option', { name: 'E2E printer settings' }).click();
      }
      await form.getByLabel('Name').fill(name);
      await form.getByRole('textbox', { name: type === 'Manual' ? 'Instructions for the operator' : 'Notes' }).fill(instructions);
      await form.getByRole('button', { name: 'Add step' }).click();
      await form.waitFor({ state: 'hidden' });
      await page.locator(`li[data-step-name="${name}"]`).waitFor();
    };
    await addStep('Manual', 'Prepare the plate', 'Clean the build plate with alcohol.');
    await addStep('Device', 'Print', 'Apply the printer settings.');
    await addStep('Manual', 'Remove supports', 'Cut the supports and sand the edges.');
    const stepNames = async () => (await fetchPackage(dsiId)).steps.map((step) => step.name);
    expect(await stepNames()).toEqual(['Prepare the plate', 'Print', 'Remove supports']);

    await page.locator('li[data-step-name="Remove supports"]').dragTo(page.locator('li[data-step-name="Prepare the plate"]'));
    await expect.poll(stepNames, settle).toEqual(['Remove supports', 'Prepare the plate', 'Print']);
    await page.getByRole('button', { name: 'Move Remove supports down' }).click();
    await expect.poll(stepNames, settle).toEqual(['Prepare the plate', 'Remove supports', 'Print']);
    await expect
      .poll(
        () =>
          page
            .getByTestId('workflow-steps')
            .locator('li')
            .evaluateAll((items) => items.map((item) => item.getAttribute('data-step-name'))),
        settle,
      )
      .toEqual(['Prepare the plate', 'Remove supports', 'Print']);
    await checkScreen(page, 'package-steps');

    // Build: a revision with its manifest digest.
    await page.getByRole('tab', { name: /Builds/ }).click();
    await page.getByRole('button', { name: 'Build a revision' }).click();
    await page.getByText('Build 1 was made').waitFor();
    const revision = (await fetchPackage(dsiId)).revisions[0];
    expect(revision?.dsiVersion).toBe(1);
    const digest = page.locator('tr[data-dsi-version="1"]').getByTestId('revision-digest');
    await expect.poll(() => digest.textContent(), settle).toBe(revision?.digestValue);
    expect(revision?.digestValue).toMatch(/^[0-9a-f]{64}$/);
    await checkScreen(page, 'package-builds');

    await page.getByRole('link', { name: 'All design packages' }).click();
    await page.getByLabel('Filter by design name').fill(designName);
    await page.locator(`tr[data-dsi-id="${dsiId}"]`).getByText('Build 1').waitFor();
    await context.close();
  });

  it('keeps the page and the search in the address: back from a package, and a reload, land on the same page', async () => {
    const run = Date.now().toString(36);
    // thirteen packages this run alone matches: two pages of ten, in name order
    const names = await thirteenPackages(`E2E paging ${run}`);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Packages' }).click();
    const search = page.getByLabel('Filter by design name');
    await search.fill(`E2E paging ${run}`);
    const table = page.getByTestId('packages-table');
    await page.getByText('13 design packages').waitFor();
    await table.getByRole('link', { name: names[0], exact: true }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('search'), settle).toBe(`E2E paging ${run}`);

    await page.getByRole('button', { name: 'Page 2' }).click();
    await table.getByRole('link', { name: names[10], exact: true }).waitFor();
    const onPageTwo = async () => {
      await table.getByRole('link', { name: names[12], exact: true }).waitFor();
      expect(await table.getByRole('link', { name: names[0], exact: true }).count()).toBe(0);
      expect(await search.inputValue()).toBe(`E2E paging ${run}`);
      expect(await page.getByRole('button', { name: 'Page 2' }).getAttribute('aria-current')).toBe('page');
      const params = new URL(page.url()).searchParams;
      expect([params.get('page'), params.get('search')]).toEqual(['2', `E2E paging ${run}`]);
    };
    await onPageTwo();

    // open a package of page 2, then back: page 2 of the same search
    await table.getByRole('link', { name: names[11], exact: true }).click();
    await page.getByRole('heading', { name: names[11], level: 1 }).waitFor();
    await page.goBack();
    await onPageTwo();

    // a reload shows the same page
    await page.reload();
    await onPageTwo();

    // back once more: the first page, as it was before page 2 was chosen
    await page.goBack();
    await table.getByRole('link', { name: names[0], exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();

    // a page past the end shows the last page; a page that is no number the first
    await page.goto(`/packages?page=99&search=${encodeURIComponent(`E2E paging ${run}`)}`);
    await onPageTwo();
    await page.goto(`/packages?page=abc&search=${encodeURIComponent(`E2E paging ${run}`)}`);
    await table.getByRole('link', { name: names[0], exact: true }).waitFor();
    await context.close();
  });

  it('a design name of 200 characters without a space wraps: its screen and its delete dialog stay within the window', async () => {
    const designName = `Long${'x'.repeat(192)}ENDS`;
    const created = await api<{ dsiId: string }>('POST /ui/package/info', {
      token: await adminToken(),
      body: { designName, companyName: '深圳市华强北精密三维打印科技股份有限公司' },
    });
    expect(created.status).toBe(200);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    /** How far the page, or the open dialog's content, reaches past its width (0: nothing sticks out). */
    const overflow = () =>
      page.evaluate(() => {
        const dialog = document.querySelector<HTMLElement>('[role=dialog] .mantine-Modal-body');
        return {
          page: document.documentElement.scrollWidth - window.innerWidth,
          dialog: dialog ? dialog.scrollWidth - dialog.clientWidth : 0,
        };
      });
    await page.goto(`/packages/${created.body.dsiId}`);
    await page.getByRole('heading', { name: designName, level: 1 }).waitFor();
    expect(await overflow()).toEqual({ page: 0, dialog: 0 });
    await page.getByRole('button', { name: 'Delete package' }).click();
    await page.getByRole('dialog').getByText(designName, { exact: false }).waitFor();
    expect(await overflow()).toEqual({ page: 0, dialog: 0 });
    await checkScreen(page, 'package-long-name-delete');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.goto(`/packages?search=${encodeURIComponent(designName)}`);
    await page.getByTestId('packages-table').getByRole('link', { name: designName }).waitFor();
    expect(await overflow()).toEqual({ page: 0, dialog: 0 });
    await context.close();
  });

  it('a search typed is one entry of the history (back returns to the page before it), and a reload straight after typing keeps it', async () => {
    const run = Date.now().toString(36);
    const names = await thirteenPackages(`E2E typing ${run}`);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto(`/packages?page=2&search=${encodeURIComponent(`E2E typing ${run}`)}`);
    const search = page.getByLabel('Filter by design name');
    const table = page.getByTestId('packages-table');
    const link = (name: string | undefined) => table.getByRole('link', { name, exact: true });
    await link(names[12]).waitFor();

    // a narrower search, typed on page 2: the first page of its four packages
    await search.fill(`E2E typing ${run} 1`);
    await page.getByText('4 design packages').waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('search'), settle).toBe(`E2E typing ${run} 1`);
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();

    // back: page 2 of the search before, as it was
    await page.goBack();
    await page.getByText('13 design packages').waitFor();
    await link(names[12]).waitFor();
    await expect.poll(() => search.inputValue(), settle).toBe(`E2E typing ${run}`);
    expect(await page.getByRole('button', { name: 'Page 2' }).getAttribute('aria-current')).toBe('page');
    const params = new URL(page.url()).searchParams;
    expect([params.get('page'), params.get('search')]).toEqual(['2', `E2E typing ${run}`]);
    // forward: the search typed
    await page.goForward();
    await page.getByText('4 design packages').waitFor();
    await expect.poll(() => search.inputValue(), settle).toBe(`E2E typing ${run} 1`);

    // typed and reloaded at once, before the search's pause is over: nothing typed is lost
    await search.fill(`E2E typing ${run} 13`);
    await page.reload();
    await page.getByText('1 design package', { exact: true }).waitFor();
    await link(names[12]).waitFor();
    expect(await search.inputValue()).toBe(`E2E typing ${run} 13`);
    await expect.poll(() => new URL(page.url()).searchParams.get('search'), settle).toBe(`E2E typing ${run} 13`);
    await context.close();
  });
});
