import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { madeParts, type MadeParts } from './support/quality';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

describe('console: quality', () => {
  let browser: Browser;
  let made: MadeParts;
  beforeAll(async () => {
    browser = await launchBrowser();
    made = await madeParts(2);
  });
  afterAll(async () => {
    await browser.close();
  });

  /** The dashboard for this test's supplier only. */
  async function dashboard(page: Page) {
    await page.goto('/quality');
    await page.getByRole('heading', { name: 'Quality', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Supplier' }).fill(made.supplier);
    await page.getByRole('button', { name: 'Search' }).click();
  }

  const figure = (page: Page, id: string) => page.getByTestId(id).textContent();

  async function inspect(page: Page, partId: string, result: 'Passed' | 'Failed', height: string) {
    await page.goto(`/quality/inspect?partId=${partId}`);
    const form = page.getByRole('form', { name: 'Inspect a part' });
    await form.getByText('Allowed: 10 – 12 mm').waitFor(settle);
    // the segmented control's radio is visually hidden under its label
    await form
      .locator('label')
      .filter({ hasText: new RegExp(`^${result}$`) })
      .click();
    await expect.poll(() => form.getByRole('radio', { name: result }).isChecked()).toBe(true);
    if (result === 'Failed') await form.getByRole('textbox', { name: 'Reason' }).fill('warped');
    await form.getByRole('textbox', { name: 'Technician' }).fill('Grace');
    await form.getByRole('textbox', { name: 'height (mm)' }).fill(height);
    await form.getByRole('button', { name: 'Record inspection' }).click();
    return form;
  }

  it('a part is refused out of range on the field, recorded in range, and the dashboard counts it', async () => {
    const { page } = await freshPage(browser);
    await logInAsAdmin(page);
    await dashboard(page);
    await expect.poll(() => figure(page, 'quality-inspected'), settle).toBe('0');
    await checkScreen(page, 'quality-dashboard-empty');

    // out of range: the server refuses it on the height field, nothing is recorded
    const [first, second] = made.parts;
    const form = await inspect(page, first!.id, 'Failed', '12.5');
    const height = form.getByRole('textbox', { name: 'height (mm)' });
    await expect.poll(() => height.getAttribute('aria-invalid'), settle).toBe('true');
    await form.getByText('The value is outside the allowed range').waitFor(settle);
    await checkScreen(page, 'quality-inspect-refused');

    // in range: recorded as failed
    await height.fill('11.4');
    await form.getByRole('button', { name: 'Record inspection' }).click();
    await page.getByText('Inspection recorded (1 parts)').waitFor(settle);

    // a second part passes
    await inspect(page, second!.id, 'Passed', '10.8');
    await page.getByText('Inspection recorded (1 parts)').waitFor(settle);

    // the dashboard's numbers change: one passed, one failed, by supplier and by reason
    await dashboard(page);
    await expect.poll(() => figure(page, 'quality-inspected'), settle).toBe('2');
    expect(await figure(page, 'quality-passed')).toBe('1');
    expect(await figure(page, 'quality-failed')).toBe('1');
    expect(await figure(page, 'quality-pass-rate')).toBe('50.0 %');
    const suppliers = page.getByTestId('quality-suppliers-table');
    await suppliers.getByRole('row', { name: `${made.supplier} 1 1 50.0 %` }).waitFor(settle);
    await page.getByTestId('quality-reasons-table').getByRole('row', { name: 'warped 1' }).waitFor(settle);
    await page.getByRole('tab', { name: /Failed/ }).click();
    await page.locator(`tr[data-part="${first!.id}"]`).waitFor(settle);
    await checkScreen(page, 'quality-dashboard');

    // the part's history carries the inspection's quality check event
    const listed = await api<{ data: { id: string; traceEvents: string[] }[] }>(
      `GET /ui/part/list?serialNumber=${encodeURIComponent(first!.serialNumber ?? '')}`,
      { token: await adminToken() },
    );
    const inspections = await api<{ data: { traceEventId: string; result: string }[] }>(
      `GET /ui/qms/inspection?partId=${first!.id}`,
      {
        token: await adminToken(),
      },
    );
    expect(inspections.body.data.map((inspection) => inspection.result)).toEqual(['failed']);
    expect(listed.body.data.find((part) => part.id === first!.id)?.traceEvents).toContain(inspections.body.data[0]!.traceEventId);
  });

  it('trace parameter types and templates are managed', async () => {
    const { page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Trace parameters' }).click();
    await page.getByRole('heading', { name: 'Trace parameters', level: 1 }).waitFor();
    const typeName = `Dimensions ${Date.now().toString(36)}`;
    await page.getByRole('textbox', { name: 'Type name' }).fill(typeName);
    await page.getByRole('button', { name: 'Add type' }).click();
    await page.getByTestId('svp-types-table').getByText(typeName).waitFor(settle);
    await page.getByRole('button', { name: 'Add template' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add template' });
    const templateName = `Bracket checks ${Date.now().toString(36)}`;
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(templateName);
    await dialog.getByRole('textbox', { name: 'Name of parameter 1' }).fill('Wall');
    await dialog.getByRole('textbox', { name: 'Units of parameter 1' }).fill('mm');
    await dialog.getByRole('textbox', { name: 'Low bound of parameter 1' }).fill('1');
    await dialog.getByRole('textbox', { name: 'High bound of parameter 1' }).fill('2');
    await checkScreen(page, 'trace-parameters-template-form');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator(`tr[data-template="${templateName}"]`).getByText('Wall · manual entry · part').waitFor(settle);
    await checkScreen(page, 'trace-parameters');
  });
});
