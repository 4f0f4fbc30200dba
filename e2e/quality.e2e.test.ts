import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, checkScreenInBothThemes, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { madeParts, type MadeParts } from './support/quality';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

/** A 1×1 PNG: a picture the server recognises by its bytes. */
const onePixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

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

  async function inspect(page: Page, partId: string, result: 'Passed' | 'Failed', height: string, picture?: string) {
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
    if (picture) {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        form.getByRole('button', { name: 'Pictures' }).click(),
      ]);
      await chooser.setFiles({ name: picture, mimeType: 'image/png', buffer: onePixelPng });
    }
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
    await page.getByText('Inspection recorded (1 part)').waitFor(settle);

    // a second part passes, its picture sent through the upload tray (one entry for the inspection)
    await inspect(page, second!.id, 'Passed', '10.8', 'bracket.png');
    await page.getByText('Inspection recorded (1 part)').waitFor(settle);
    const tray = page.getByRole('region', { name: 'Uploads' });
    const entry = tray.locator('[data-upload-status="finished"]').filter({
      hasText: `Inspection of ${second!.serialNumber ?? second!.id} (1 picture)`,
    });
    await entry.waitFor(settle);
    await checkScreen(page, 'quality-inspect-tray');
    await tray.getByRole('button', { name: 'Close uploads' }).click();
    const pictures = await api<{ data: { pictures: { fileName: string; size: number }[] }[] }>(
      `GET /ui/qms/inspection?partId=${second!.id}`,
      { token: await adminToken() },
    );
    expect(pictures.body.data[0]!.pictures.map(({ fileName, size }) => ({ fileName, size }))).toEqual([
      { fileName: 'bracket.png', size: onePixelPng.length },
    ]);

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
    // the supplier's chart: one stacked bar, its passed part and its failed part, under its name
    const supplierChart = page.getByTestId('quality-suppliers').locator('svg');
    await expect.poll(() => supplierChart.locator('[data-chart-category] rect').count(), settle).toBe(2);
    expect(await supplierChart.locator('[data-chart-label] title').textContent()).toBe(made.supplier);
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

    // and the part's page shows it on the timeline
    await page.goto(`/parts/${first!.id}`);
    const timeline = page.getByTestId('part-timeline');
    const step = timeline.locator('[data-step="inspection"]');
    await step.getByText('Quality check failed').waitFor(settle);
    await step.locator('[data-state="FAILURE"]').waitFor(settle);
    // recorded in the console: numbered on this server's chain, not the machine's
    await timeline
      .locator('[data-event-kind="qualityCheckFailed"]')
      .getByText(/^Recorded in the console, No\. \d+ of this server$/)
      .waitFor(settle);
    await checkScreenInBothThemes(page, 'quality-part-history');
  });

  it('trace-parameter values are recorded, refused out of range on the field, edited and deleted on the part and build pages', async () => {
    const token = await adminToken();
    const stamp = Date.now().toString(36);
    const type = await api<{ id: string }>('POST /ui/svp-type/add', {
      token,
      body: { name: `Measurements ${stamp}`, description: '' },
    });
    const templateName = `Part checks ${stamp}`;
    const template = await api<{ id: string }>('POST /ui/svp/add', {
      token,
      body: {
        typeId: type.body.id,
        name: templateName,
        description: '',
        parameters: [
          { name: `Wall ${stamp}`, dataType: 'MANUAL_ENTRY', association: 'PART', units: 'mm', low: 1, high: 2 },
          { name: `Report ${stamp}`, dataType: 'FILE', association: 'BUILD_PART' },
          { name: `Oven ${stamp}`, dataType: 'MANUAL_ENTRY', association: 'BUILD' },
        ],
      },
    });
    expect(template.status).toBe(200);
    const part = made.parts[1]!;
    const { page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto(`/parts/${part.id}`);
    const panel = page.getByTestId('trace-values');
    const form = panel.getByRole('form', { name: 'Record a value' });
    const pick = async (name: string) => {
      await form.getByRole('textbox', { name: 'Parameter' }).click();
      await page.getByRole('option', { name }).click();
    };

    // a manual entry out of range is refused on its field, then recorded in range
    await pick(`Wall ${stamp} (mm)`);
    const wall = form.getByRole('textbox', { name: `Wall ${stamp} (mm)` });
    await form.getByText('Allowed: 1 – 2 mm').waitFor(settle);
    await wall.fill('2.5');
    await form.getByRole('button', { name: 'Record value' }).click();
    await expect.poll(() => wall.getAttribute('aria-invalid'), settle).toBe('true');
    await form.getByText('The value is outside the allowed range').waitFor(settle);
    await checkScreen(page, 'trace-values-refused');
    await wall.fill('1.5');
    await form.getByRole('button', { name: 'Record value' }).click();
    const rows = panel.getByTestId('trace-values-table');
    await rows.locator(`tr[data-parameter="Wall ${stamp}"]`).getByText('1.5 mm').waitFor(settle);
    // the timeline shows it too
    await page.getByTestId('part-timeline').locator('[data-step="values"]').getByText('1.5 mm').waitFor(settle);

    // a file through the upload tray
    await pick(`Report ${stamp}`);
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      form.getByRole('button', { name: 'Choose a file to send' }).click(),
    ]);
    await chooser.setFiles({ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('wall 1.5 mm') });
    await page.getByRole('region', { name: 'Uploads' }).locator('[data-upload-status="finished"]').waitFor(settle);
    await rows.locator(`tr[data-parameter="Report ${stamp}"]`).getByText('report.txt', { exact: false }).waitFor(settle);
    await page.getByRole('region', { name: 'Uploads' }).getByRole('button', { name: 'Close uploads' }).click();

    // edit the entry
    await rows.getByRole('button', { name: `Edit the value of Wall ${stamp}` }).click();
    const editForm = panel.getByRole('form', { name: 'Edit a value' });
    await editForm.getByRole('textbox', { name: `Wall ${stamp} (mm)` }).fill('1.8');
    await editForm.getByRole('button', { name: 'Save' }).click();
    await rows.locator(`tr[data-parameter="Wall ${stamp}"]`).getByText('1.8 mm').waitFor(settle);
    await checkScreen(page, 'trace-values-part');

    // delete the file value
    await rows.getByRole('button', { name: `Delete the value of Report ${stamp}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await rows.locator(`tr[data-parameter="Report ${stamp}"]`).waitFor({ state: 'detached', ...settle });

    // the build page records build values
    await page.goto(`/builds/${part.buildId}`);
    const buildPanel = page.getByTestId('trace-values');
    const buildForm = buildPanel.getByRole('form', { name: 'Record a value' });
    await buildForm.getByRole('textbox', { name: 'Parameter' }).click();
    await page.getByRole('option', { name: `Oven ${stamp}` }).click();
    await buildForm.getByRole('textbox', { name: `Oven ${stamp}` }).fill('B-7');
    await buildForm.getByRole('button', { name: 'Record value' }).click();
    await buildPanel.locator(`tr[data-parameter="Oven ${stamp}"]`).getByText('B-7').waitFor(settle);
    await checkScreen(page, 'trace-values-build');
    const values = await api<{ data: { parameterName: string; value: string | null }[] }>(
      `GET /ui/svp-value/list?partId=${part.id}`,
      { token },
    );
    expect(values.body.data.map((value) => [value.parameterName, value.value]).sort()).toEqual([
      [`Oven ${stamp}`, 'B-7'],
      [`Wall ${stamp}`, '1.8'],
    ]);
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
