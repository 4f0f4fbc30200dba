import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  api,
  checkScreen,
  checkScreenInBothThemes,
  freshPage,
  launchBrowser,
  logInAsAdmin,
  switchTheme,
} from './support/browser';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

interface ServerConfig {
  serverSiteName: string;
  serverUrl: string;
  manageEnabled: boolean;
  traceEnabled: boolean;
}

async function serverConfig(): Promise<ServerConfig> {
  return (await api<ServerConfig>('GET /ui/admin/server', { token: await adminToken() })).body;
}

describe('console: administration settings (ADMIN)', () => {
  let browser: Browser;
  let original: ServerConfig;
  beforeAll(async () => {
    browser = await launchBrowser();
    original = await serverConfig();
  });
  afterAll(async () => {
    // the server is shared by every spec: leave its name and switches as found
    await api('POST /ui/admin/server', { token: await adminToken(), body: original });
    await browser.close();
  });

  it('renames the site and sees the new name in the title and header without a reload; field errors sit on their fields', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL((url) => url.pathname === '/settings/server');
    const form = page.getByRole('form', { name: 'Server' });
    const siteName = form.getByRole('textbox', { name: 'Site name' });
    await expect.poll(() => siteName.inputValue(), settle).toBe(original.serverSiteName);
    await checkScreen(page, 'settings-server');

    await form.getByRole('textbox', { name: 'Server address' }).fill('ftp://files.example');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('The server address must be an absolute http or https URL').waitFor(settle);
    await form.getByRole('textbox', { name: 'Server address' }).fill(original.serverUrl);

    const renamed = `Acme Printworks ${Math.random().toString(36).slice(2, 6)}`;
    await siteName.fill(renamed);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The server settings were saved').waitFor(settle);
    const header = page.getByRole('banner');
    await expect.poll(() => header.getByText(renamed).count(), settle).toBe(1);
    await expect.poll(() => page.title(), settle).toBe(`Server · ${renamed}`);
    expect((await serverConfig()).serverSiteName).toBe(renamed);
    await checkScreen(page, 'settings-server-renamed');

    // another tab (a fresh page load) brands with the new name too
    await page.goto('/');
    await expect.poll(() => page.title(), settle).toContain(renamed);
    await context.close();
  });

  it('shows the settings pages as one row that scrolls sideways, every page reached from the keyboard', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/settings/server');
    const row = page.getByRole('navigation', { name: 'Settings pages' });
    const links = row.getByRole('link');
    await links.first().waitFor();
    const count = await links.count();
    expect(count).toBeGreaterThan(8);
    // one line at 1280 px (and narrower): every link at the same height, the rest scrolled to
    const tops = await links.evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    expect(await row.evaluate((nav) => nav.scrollWidth > nav.clientWidth)).toBe(true);
    await page.setViewportSize({ width: 375, height: 860 });
    expect(new Set(await links.evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().top))).size).toBe(1);
    await page.setViewportSize({ width: 1280, height: 860 });
    // Tab walks the row; the last link scrolls into view and Enter opens its page
    await links.first().focus();
    for (let index = 1; index < count; index += 1) await page.keyboard.press('Tab');
    const last = links.last();
    expect(await last.evaluate((node) => node === document.activeElement)).toBe(true);
    // scrolled by the browser after the focus moved (and the resize's layout): waited for, not sampled once
    await expect.poll(() => row.evaluate((nav) => nav.scrollLeft), settle).toBeGreaterThan(0);
    const lastInView = async () => {
      const [navBox, lastBox] = [await row.boundingBox(), await last.boundingBox()];
      return Boolean(lastBox && navBox && lastBox.x + lastBox.width <= navBox.x + navBox.width + 1);
    };
    await expect.poll(lastInView, settle).toBe(true);
    const href = await last.getAttribute('href');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === href, settle);
    // the address changes before the row re-renders with the new page marked
    await expect.poll(() => last.getAttribute('aria-current'), settle).toBe('page');
    await context.close();
  });

  it('switching Manage off hides its screens; back on, they return', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    const navigation = page.getByRole('navigation', { name: 'Main navigation' });
    await navigation.getByRole('link', { name: 'Orders' }).waitFor(settle);
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Server' });
    const manage = form.getByRole('switch', { name: 'Manage' });
    await expect.poll(() => manage.isChecked(), settle).toBe(true);
    await manage.uncheck();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The server settings were saved').waitFor(settle);
    await expect.poll(() => navigation.getByRole('link', { name: 'Orders' }).count(), settle).toBe(0);
    await expect.poll(() => navigation.getByRole('link', { name: 'Authorizations' }).count(), settle).toBe(0);

    await manage.check();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => navigation.getByRole('link', { name: 'Orders' }).count(), settle).toBe(1);
    await context.close();
  });

  it('shows the addons and the licence pages', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/settings/addons');
    const addons = page.getByRole('form', { name: 'Addons' });
    await addons.getByRole('switch', { name: 'Design archive' }).waitFor(settle);
    await checkScreen(page, 'settings-addons');
    await page.getByRole('link', { name: 'Licence' }).click();
    await page.getByTestId('licence-state').waitFor(settle);
    await checkScreen(page, 'settings-licence');
    await context.close();
  });

  it('the licence state reads in the dark theme too', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await switchTheme(page, 'dark');
    await page.goto('/settings/licence');
    await page.getByTestId('licence-state').waitFor(settle);
    await checkScreen(page, 'settings-licence-dark');
    await context.close();
  });

  it('sets event forwarding on its settings page, and the server keeps it', async () => {
    const token = await adminToken();
    const before = (await api<{ enabled: boolean; timeout: number }>('GET /ui/admin/event', { token })).body;
    const { context, page } = await freshPage(browser);
    try {
      await logInAsAdmin(page);
      await page.goto('/settings/events');
      const form = page.getByRole('form', { name: 'Event forwarding' });
      const enabled = form.getByRole('switch', { name: 'Forward events to the Trace instances' });
      await enabled.waitFor(settle);
      await checkScreen(page, 'settings-events');
      const hours = form.getByRole('textbox', { name: 'Keep trying for (hours)' });
      await hours.fill('');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => form.getByText('Give a number of hours above zero.').count(), settle).toBe(1);
      if ((await enabled.isChecked()) === before.enabled) await enabled.click({ force: true });
      await hours.fill('2.5');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(async () => (await api<{ enabled: boolean; timeout: number }>('GET /ui/admin/event', { token })).body, settle)
        .toEqual({ enabled: !before.enabled, timeout: 9000 });
    } finally {
      await api('POST /ui/admin/event', { token, body: before });
      await context.close();
    }
  });

  it('the API reference page lists the routes, console and partner interfaces, and reads in both themes', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/settings/server');
    await page.getByRole('link', { name: 'API reference' }).click();
    const reference = page.getByTestId('api-reference');
    await reference.locator('[data-path="/ui/admin/state"]').first().waitFor();
    // every operation is listed (closed): the console's, the partner interfaces'
    for (const path of [
      '/ui/admin/server',
      '/ui/user/login',
      '/ui/order/list',
      '/certificate/certificateChain',
      '/apl/registration/add',
    ]) {
      expect(await reference.locator(`[data-path="${path}"]`).count(), path).toBeGreaterThan(0);
    }
    const count = await reference.locator('[data-path]').count();
    expect(count).toBeGreaterThan(200);
    await expect
      .poll(() => reference.getByTestId('api-reference-count').textContent())
      .toMatch(new RegExp(`^${count} of ${count} operations`));
    // the whole list, every tag's section named by its heading
    await checkScreen(page, 'settings-api-reference-all');
    // a search narrows the list; an operation opens to who may call it, its parameters and responses
    await reference.getByLabel('Search operations').fill('order list');
    await expect.poll(() => reference.locator('[data-path]').count()).toBeLessThan(10);
    const orders = reference.locator('[data-path="/ui/order/list"]');
    await orders.getByRole('button', { name: /\/ui\/order\/list/ }).click();
    await orders.getByText('Any signed-in user (USER or ADMIN)').waitFor();
    expect(new URL(page.url()).hash).toBe('#get/ui/order/list');
    await expect
      .poll(() => orders.getByRole('row').allTextContents())
      .toContain('sortByquerystring  one of orderId, userId, companyName, dateCreated · default orderId');
    await expect
      .poll(() => orders.locator('[data-status="420"]').textContent())
      .toContain('One business error: {errorToken, errorDescription}');
    await orders.locator('[data-status="200"] [data-field="data"] [data-field="orderId"]').waitFor();
    await checkScreenInBothThemes(page, 'settings-api-reference');
    // the document itself, as the server gave it
    const download = page.waitForEvent('download');
    await reference.getByRole('button', { name: 'Download the OpenAPI document' }).click();
    const saved = JSON.parse(fs.readFileSync((await (await download).path())!, 'utf8')) as { openapi: string; paths: object };
    expect(saved.openapi).toBe('3.1.0');
    expect(Object.keys(saved.paths)).toContain('/ui/order/list');
    // the address names the operation opened: loaded again, the page opens it
    await page.reload();
    await reference.locator('[data-path="/ui/order/list"]').getByText('Any signed-in user (USER or ADMIN)').waitFor();
    expect(await reference.getByRole('button', { expanded: true, name: /\/ui\/order\/list/ }).count()).toBe(1);
    await context.close();
  });
});
