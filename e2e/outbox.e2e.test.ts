import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';

describe('console: outbox and event queue (ADMIN)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows the event queue and the outbox with its state filter', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    const navigation = page.getByRole('navigation', { name: 'Main navigation' });
    await navigation.getByRole('link', { name: 'Event queue' }).click();
    await page.getByRole('heading', { name: 'Event queue', level: 1 }).waitFor();
    await page.getByTestId('queue-table').waitFor();
    await checkScreen(page, 'queue');

    await navigation.getByRole('link', { name: 'Outbox' }).click();
    await page.getByRole('heading', { name: 'Outbox', level: 1 }).waitFor();
    await page.locator('label', { hasText: 'Given up' }).click();
    await page.getByTestId('outbox-table').waitFor();
    await checkScreen(page, 'outbox');
    await context.close();
  });
});
