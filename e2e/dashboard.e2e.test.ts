import type { TDashboard } from '@manifold/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  api,
  checkScreen,
  checkScreenInBothThemes,
  createUser,
  freshPage,
  launchBrowser,
  logInAs,
  logInAsAdmin,
} from './support/browser';
import { madeParts } from './support/quality';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

async function figures(token: string): Promise<TDashboard> {
  const { status, body } = await api<TDashboard>('GET /ui/dashboard', { token });
  expect(status).toBe(200);
  return body;
}

const figure = (page: Page, id: string) => page.locator(`[data-figure="${id}"]`).textContent();

describe('console: home dashboard', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows the figures the server counts, each linked to its screen, and follows what happens', async () => {
    const token = await adminToken();
    const { page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByTestId('dashboard').waitFor(settle);
    const before = await figures(token);
    await expect.poll(() => figure(page, 'figure-live-orders'), settle).toBe(String(before.orders.live));
    expect(await figure(page, 'figure-jobs')).toBe(String(before.jobs.inProgress));
    expect(await figure(page, 'figure-machines-awaitingApproval')).toBe(String(before.machines.awaitingApproval));
    await page
      .getByTestId('dashboard-parts-table')
      .getByRole('row', { name: new RegExp(`^${before.parts.days.at(-1)!.day} `) })
      .waitFor();
    await page.getByTestId('dashboard-peers').waitFor();
    // the first run is listed while the instance is not set up, each step linked
    if (before.firstRun && !before.firstRun.complete) {
      const firstRun = page.getByTestId('first-run');
      for (const { step, done } of before.firstRun.steps) {
        expect(await firstRun.locator(`[data-step="${step}"]`).getAttribute('data-done')).toBe(String(done));
      }
      await firstRun.getByRole('link', { name: 'Choose the storage' }).waitFor();
    } else {
      expect(await page.getByTestId('first-run').count()).toBe(0);
    }
    await checkScreenInBothThemes(page, 'home-dashboard');

    // a new order printed from: one more live order, one more part made today
    await madeParts(1);
    const after = await figures(token);
    expect(after.orders.live).toBe(before.orders.live + 1);
    expect(after.parts.made).toBe(before.parts.made + 1);
    await page.reload();
    await expect.poll(() => figure(page, 'figure-live-orders'), settle).toBe(String(after.orders.live));

    await page.getByTestId('figure-jobs').click();
    await page.waitForURL((url) => url.pathname === '/builds');
  });

  it('a USER sees the figures without peers and first run', async () => {
    const { page } = await freshPage(browser);
    await logInAs(page, await createUser('USER'));
    await page.getByTestId('dashboard').waitFor(settle);
    await page.locator('[data-figure="figure-live-orders"]').waitFor();
    expect(await page.getByTestId('dashboard-peers').count()).toBe(0);
    expect(await page.getByTestId('first-run').count()).toBe(0);
    await checkScreen(page, 'home-dashboard-user');
  });
});
