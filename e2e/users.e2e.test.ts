import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';

function field(page: Page, label: string) {
  return page.getByRole('dialog').getByLabel(label, { exact: false }).first();
}

describe('console: users and groups (ADMIN)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('adds a user with field errors shown in place, edits and deletes it', async () => {
    const username = `e2e-added-${Date.now().toString(36)}`;
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByTestId('users-table').getByRole('cell', { name: 'admin', exact: true }).waitFor();
    await checkScreen(page, 'users');

    await page.getByRole('button', { name: 'Add user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await field(page, 'Username').fill(username);
    await field(page, 'Email').fill('not-an-email');
    await field(page, 'First name').fill('Grace');
    await dialog.getByRole('button', { name: 'Add user' }).click();

    const email = field(page, 'Email');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await email.getAttribute('aria-describedby')) ?? '';
    expect(errorId).not.toBe('');
    const described = await page.evaluate(
      (ids) =>
        ids
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      errorId,
    );
    expect(described).toContain('Email is not a valid address');
    await expect.poll(() => field(page, 'Last name').getAttribute('aria-invalid')).toBe('true');
    await checkScreen(page, 'users-add-errors');

    await email.fill(`${username}@example.com`);
    await field(page, 'Last name').fill('Hopper');
    await field(page, 'Password').fill('E2e-added-password-1');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await page.getByText(`User ${username} was added`).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByLabel('Search users').fill(username);
    const row = page.locator(`tr[data-username="${username}"]`);
    await row.getByRole('cell', { name: 'Grace Hopper' }).waitFor();

    await page.getByRole('button', { name: `Edit ${username}` }).click();
    await field(page, 'First name').fill('Rear Admiral Grace');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`User ${username} was saved`).waitFor();
    await row.getByRole('cell', { name: 'Rear Admiral Grace Hopper' }).waitFor();

    await page.getByRole('button', { name: `Delete ${username}` }).click();
    await page.getByRole('dialog').getByText(`Delete the user ${username}?`, { exact: false }).waitFor();
    await checkScreen(page, 'users-delete-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`User ${username} was deleted`).waitFor();
    await row.waitFor({ state: 'detached' });
    await context.close();
  });

  it('shows a taken username next to the username field', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/users');
    await page.getByRole('button', { name: 'Add user' }).click();
    await field(page, 'Username').fill('admin');
    await field(page, 'Email').fill('second-admin@example.com');
    await field(page, 'First name').fill('Second');
    await field(page, 'Last name').fill('Admin');
    await field(page, 'Password').fill('E2e-added-password-1');
    await page.getByRole('dialog').getByRole('button', { name: 'Add user' }).click();
    const username = field(page, 'Username');
    await expect.poll(() => username.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('dialog').getByText('A user with this username already exists').waitFor();
    await context.close();
  });

  it('shows the logins held back after failures and lets the admin clear one', async () => {
    // a name whose confusable skeleton is itself, so its counter key reads as typed
    const ghost = 'e2e-ghost-abcdef';
    for (let i = 0; i < 4; i += 1) await api('POST /ui/user/login', { body: { username: ghost, password: 'wrong-password' } });
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/users');
    const row = page.getByTestId('login-throttle-table').getByRole('row', { name: new RegExp(`${ghost} · 127\\.0\\.0\\.1`) });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('Account from one address');
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('4');
    await checkScreen(page, 'users-held-back-logins');
    await row.getByRole('button', { name: `Clear the counter of ${ghost} · 127.0.0.1` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clear' }).click();
    await page.getByText(`Counter of ${ghost} · 127.0.0.1 cleared`).waitFor();
    await expect.poll(() => row.count()).toBe(0);
    await context.close();
  });

  it('on a 375-pixel phone screen the users and groups tables scroll sideways from the keyboard too', async () => {
    const { context, page } = await freshPage(browser);
    await page.setViewportSize({ width: 375, height: 812 });
    await logInAsAdmin(page);
    await page.goto('/users');
    await page.getByTestId('users-table').getByRole('cell', { name: 'admin', exact: true }).waitFor();
    await page.getByTestId('login-throttle-table').waitFor();
    // a table wider than the screen scrolls: axe's scrollable-region-focusable wants its region focusable
    await checkScreen(page, 'users-phone');
    // the captions under tables wider than the screen are read whole, from where the tables start
    for (const table of ['users-table', 'login-throttle-table']) {
      const [left, right] = await page
        .getByTestId(table)
        .locator('caption')
        .evaluate((caption) => {
          const range = document.createRange();
          range.selectNodeContents(caption);
          const { left: start, right: end } = range.getBoundingClientRect();
          return [start, end];
        });
      expect([table, left >= 0 && right <= 375]).toEqual([table, true]);
    }
    // a search that matches no one: the table's one row says so, whole and within the screen,
    // though the table is wider than the screen
    await page.goto('/users?search=nobody-has-this-name');
    const empty = page.getByTestId('users-table').getByTestId('table-empty');
    await empty.getByText('No users match the filters.', { exact: true }).waitFor();
    const box = await empty.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    expect(await empty.evaluate((text) => text.scrollWidth <= text.clientWidth)).toBe(true);
    expect(await page.getByTestId('users-table').evaluate((table) => table.getBoundingClientRect().width)).toBeGreaterThan(375);
    await page.goto('/groups');
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await checkScreen(page, 'groups-phone');
    await context.close();
  });

  it('adds a group with members, edits it and deletes it', async () => {
    const name = `e2e-group-${Date.now().toString(36)}`;
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await checkScreen(page, 'groups');

    await page.getByRole('button', { name: 'Add group' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Add group' }).click();
    await dialog.getByText('Group name is required').waitFor();
    await field(page, 'Name').fill(name);
    // the message was about the empty name: typing one takes it away
    await dialog.getByText('Group name is required').waitFor({ state: 'detached' });
    await field(page, 'Description').fill('Printers of the east hall');
    await dialog.getByRole('textbox', { name: 'Members' }).click();
    await page.getByRole('option', { name: /\(admin\)$/ }).click();
    await page.keyboard.press('Escape');
    await checkScreen(page, 'groups-add');
    await dialog.getByRole('button', { name: 'Add group' }).click();
    await page.getByText(`Group ${name} was added`).waitFor();

    const row = page.locator(`tr[data-group="${name}"]`);
    await row.getByText('admin', { exact: true }).waitFor();
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    await field(page, 'Description').fill('Printers of the west hall');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Group ${name} was saved`).waitFor();
    await row.getByRole('cell', { name: 'Printers of the west hall' }).waitFor();

    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Group ${name} was deleted`).waitFor();
    await row.waitFor({ state: 'detached' });
    await context.close();
  });
});
