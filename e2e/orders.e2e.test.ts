import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, checkScreenInBothThemes, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { approvedMachine, builtRevision, policyList, provisionedSigningSerial, type DesignRevision } from './support/licensing';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

interface OrderView {
  remainingQuantity: number;
  revoked: boolean;
  authorizations: { data: { authorizationId: string; state: string; quantity: number; tracking: { fieldName: string }[] }[] };
}

async function order(orderId: string): Promise<OrderView> {
  const { status, body } = await api<OrderView>(`GET /ui/order/fetch?orderId=${orderId}`, { token: await adminToken() });
  if (status !== 200) throw new Error(`order/fetch answered ${status}`);
  return body;
}

describe('console: orders and authorizations', () => {
  let browser: Browser;
  let licenseeSerial: string;
  let revision: DesignRevision;
  let machine: { deviceId: string; name: string; serialNumber: string };
  beforeAll(async () => {
    browser = await launchBrowser();
    licenseeSerial = await provisionedSigningSerial();
    revision = await builtRevision();
    machine = await approvedMachine();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('an order arrives, is authorized to an approved machine, sent, revoked', async () => {
    const policy = policyList(revision, licenseeSerial, 10);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await page.getByTestId('orders-table').waitFor();
    await checkScreenInBothThemes(page, 'orders');

    // the order arrives: its policy list pasted into the add form
    await page.getByRole('button', { name: 'Add order' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an order' });
    await dialog.getByLabel('Authorized policy list (JSON)').fill(JSON.stringify({ ...policy, quantity: 0 }, null, 2));
    await dialog.getByRole('button', { name: 'Add order' }).click();
    await dialog
      .getByTestId('add-order-problems')
      .getByText(/quantity/)
      .waitFor(settle);
    await checkScreen(page, 'orders-add-refused');
    await dialog.getByLabel('Authorized policy list (JSON)').fill(JSON.stringify(policy, null, 2));
    await dialog.getByRole('button', { name: 'Add order' }).click();
    await page.waitForURL((url) => /^\/orders\/[0-9a-f-]{36}$/.test(url.pathname), settle);
    const orderId = new URL(page.url()).pathname.split('/')[2] ?? '';
    await page.getByRole('heading', { name: `Order ${policy.orderNumber}`, level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('remaining-quantity-value').textContent(), settle).toBe('10');
    await page.getByTestId('order-history').locator('[data-event="licenceReceived"]').waitFor(settle);
    await checkScreenInBothThemes(page, 'order-detail');

    // it is listed, and the list keeps its state in the address
    await page.goto(`/orders?filterByCompanyName=${encodeURIComponent('Acme Designs')}&sortBy=dateCreated&sortOrder=desc`);
    await page.locator(`tr[data-order-id="${orderId}"]`).waitFor(settle);
    expect(await page.getByLabel('Company name (exact)').inputValue()).toBe('Acme Designs');
    // its date and time on one line, the table scrolling sideways if need be
    const created = page.locator(`tr[data-order-id="${orderId}"] time`);
    expect(await created.evaluate((time) => time.getClientRects().length)).toBe(1);
    expect(await created.evaluate((time) => getComputedStyle(time).whiteSpace)).toBe('nowrap');
    await page.locator(`tr[data-order-id="${orderId}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: `Order ${policy.orderNumber}`, level: 1 }).waitFor();

    // authorize: first a request the server refuses on two fields at once
    await page.getByRole('link', { name: 'Authorize' }).click();
    const form = page.getByTestId('authorize-form');
    await form.waitFor();
    await form.getByText('10 of 10 left on the order').waitFor();
    await form.getByRole('textbox', { name: 'Machine' }).click();
    await page.getByRole('option', { name: `${machine.name} (${machine.serialNumber})` }).click();
    // the editor offers the bed temperature inside both bounds: the order's 55–100, the machine's INCREASE from 60
    const bed = form.locator('[data-parameter="deviceParameters.bedTemperature"]');
    await form.getByText('Between 60 and 100').waitFor(settle);
    await expect
      .poll(() => form.locator('[data-parameter="deviceParameters.layerHeight"]').getAttribute('readonly'))
      .not.toBeNull();
    await bed.fill('70');
    // the quantity offered stops at what is left
    const quantity = form.getByRole('textbox', { name: 'Quantity' });
    await quantity.fill('50');
    await quantity.blur();
    expect(await quantity.inputValue()).toBe('10');
    await form.getByLabel('Expires').fill('2099-01-01T10:00');
    await form.getByRole('button', { name: 'Add tracking field' }).click();
    await form.getByRole('button', { name: 'Add tracking field' }).click();
    await form.getByLabel('Name of field 1').fill('lot');
    await form.getByLabel('Value of field 1').fill('L7');
    await form.getByLabel('Name of field 2').fill('lot');
    await form.getByLabel('Value of field 2').fill('L8');
    await form.getByRole('button', { name: 'Authorize' }).click();
    await expect.poll(() => form.getByLabel('Expires').getAttribute('aria-invalid'), settle).toBe('true');
    expect(await form.getByLabel('Name of field 2').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('Name of field 1').getAttribute('aria-invalid')).toBe('false');
    await checkScreen(page, 'order-authorize-refused');
    expect((await order(orderId)).remainingQuantity).toBe(10);

    // then a valid one
    await quantity.fill('3');
    await form.getByLabel('Expires').fill('');
    await form.getByRole('button', { name: 'Remove field 2' }).click();
    await form.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL((url) => url.pathname === `/orders/${orderId}`, settle);
    await expect.poll(() => page.getByTestId('remaining-quantity-value').textContent(), settle).toBe('7');
    const authorization = (await order(orderId)).authorizations.data[0];
    expect(authorization).toMatchObject({ state: 'authorized', quantity: 3, tracking: [{ fieldName: 'lot' }] });
    const id = authorization?.authorizationId ?? '';
    const row = page.locator(`tr[data-authorization-id="${id}"]`);
    await row.locator('[data-state="authorized"]').waitFor(settle);
    // the state reads whole, not cut to "AUTHO…" by the table's narrow column
    const stateLabel = row.locator('[data-state="authorized"] .mantine-Badge-label');
    expect(await stateLabel.evaluate((label) => label.scrollWidth <= label.clientWidth)).toBe(true);

    // sent
    await row.getByRole('button', { name: `Send authorization ${id.slice(0, 8)}` }).click();
    await row.locator('[data-state="sent"]').waitFor(settle);
    expect((await order(orderId)).authorizations.data[0]?.state).toBe('sent');

    // its signed XML saved as a file
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: `Download authorization ${id.slice(0, 8)} (signed XML)` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`authorization-${id}.xml`);
    const xml = fs.readFileSync((await download.path()) ?? '', 'utf8');
    expect(xml).toContain('urn:manifold:authorization:1');
    expect(xml).toContain(id);

    // the authorizations screen lists it
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Authorizations' }).click();
    await page.getByRole('heading', { name: 'Authorizations', level: 1 }).waitFor();
    await page.locator(`tr[data-authorization-id="${id}"] [data-state="sent"]`).waitFor(settle);
    await checkScreen(page, 'authorizations');
    // the expiration and creation dates each on one line (they used to break before the time)
    const times = page.locator(`tr[data-authorization-id="${id}"] time`);
    expect(await times.count()).toBe(2);
    expect(await times.evaluateAll((nodes) => nodes.map((time) => time.getClientRects().length))).toEqual([1, 1]);

    // revoked: the quantity returns to the order
    await page.goto(`/orders/${orderId}`);
    await row.getByRole('button', { name: `Revoke authorization ${id.slice(0, 8)}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the authorization?' });
    await checkScreen(page, 'authorization-revoke-confirm');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await row.locator('[data-state="revoked"]').waitFor(settle);
    await expect.poll(() => page.getByTestId('remaining-quantity-value').textContent(), settle).toBe('10');
    expect(await order(orderId)).toMatchObject({ remainingQuantity: 10, authorizations: { data: [{ state: 'revoked' }] } });
    await page.getByTestId('order-history').locator('[data-event="licenceRevoked"]').waitFor(settle);

    // and the order itself revoked, after its confirmation
    await page.getByRole('button', { name: 'Revoke order' }).click();
    const revokeOrder = page.getByRole('dialog', { name: 'Revoke the order?' });
    await checkScreen(page, 'order-revoke-confirm');
    await revokeOrder.getByRole('button', { name: 'Revoke order' }).click();
    await page.locator('[data-state="revoked"]').first().waitFor(settle);
    await expect.poll(async () => (await order(orderId)).revoked, settle).toBe(true);
    await context.close();
  });
});
