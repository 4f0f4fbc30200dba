import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen, createUser, freshPage, launchBrowser, logInAs, logInAsAdmin } from './support/browser';

/** The navigation a USER sees. */
const userNavigation = [
  'Home',
  'Profile',
  'Packages',
  'Devices',
  'Orders',
  'Authorizations',
  'Events',
  'Builds',
  'Machine data',
  'Event queue',
  'Quality',
  'Inspect a part',
  'Network',
  'Secure files',
];

/** The headings of a USER's navigation (administration's screens are an ADMIN's). */
const userSections = ['Licensing', 'Traceability', 'Quality', 'Supply chain', 'Secure repository'];

describe('console: shell, languages, roles', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows the error view and title for an unknown route', async () => {
    const { context, page } = await freshPage(browser);
    const response = await page.goto('/orders/42/nothing-here');
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.getByTestId('error-view-text').textContent()).toBe('404 - Page not found');
    await expect.poll(() => page.title()).toBe('404 — Manifold');
    await checkScreen(page, 'error-404');
    await context.close();
  });

  it('shows the error view inside the layout for an unknown route when logged in', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/no-such-screen');
    await expect.poll(() => page.getByTestId('error-view-text').textContent()).toBe('404 - Page not found');
    await expect.poll(() => page.title()).toBe('404 — Manifold');
    await context.close();
  });

  it('switches to Chinese from the user menu and keeps it after a reload', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: '中文' }).click();
    await page.getByRole('link', { name: '首页' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh');
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'locale');
    expect(cookie).toMatchObject({ value: 'zh', path: '/', sameSite: 'Lax' });
    await page.getByRole('heading', { name: '欢迎，Site Administrator' }).waitFor();
    await checkScreen(page, 'home-zh');

    await page.getByRole('link', { name: '个人资料' }).first().click();
    await page.getByRole('heading', { name: '个人资料' }).first().waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Site Administrator 的个人资料' }).waitFor();
    expect(await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))).toEqual({
      lang: 'zh',
      dir: 'ltr',
    });
    await expect.poll(() => page.title()).toBe('个人资料 · Manifold');
    await checkScreen(page, 'profile-zh');

    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await page.getByRole('link', { name: 'Home' }).waitFor();
    await context.close();
  });

  it('switches to the dark theme by a body class kept in the theme cookie', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    expect(await page.evaluate(() => document.body.className)).toContain('theme-light');
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Dark' }).click();
    await expect.poll(() => page.evaluate(() => document.body.className)).toContain('theme-dark');
    await checkScreen(page, 'home-dark');
    await page.goto('/profile');
    await page.getByRole('heading', { name: /^Profile of/ }).waitFor();
    expect(await page.evaluate(() => document.body.className)).toContain('theme-dark');
    expect((await context.cookies()).find((candidate) => candidate.name === 'theme')?.value).toBe('dark');
    await checkScreen(page, 'profile-dark');
    await context.close();
  });

  it('never shows admin navigation to a USER and refuses admin screens opened directly', async () => {
    const user = await createUser('USER');
    const { context, page } = await freshPage(browser);
    await logInAs(page, user);
    const navigation = page.getByRole('navigation', { name: 'Main navigation' });
    await navigation.getByRole('link', { name: 'Home' }).waitFor();
    expect(await navigation.getByRole('link').allTextContents()).toEqual(userNavigation);
    const sections = await navigation
      .getByRole('group')
      .evaluateAll((groups) =>
        groups.map((group) => document.getElementById(group.getAttribute('aria-labelledby') ?? '')?.textContent),
      );
    expect(sections).toEqual(userSections);
    expect(await navigation.getByRole('group', { name: 'Supply chain' }).getByRole('link').allTextContents()).toEqual([
      'Network',
    ]);
    await checkScreen(page, 'home-user');

    for (const path of ['/users', '/groups', '/setup']) {
      await page.goto(path);
      await expect.poll(() => page.getByTestId('error-view-text').textContent()).toBe('403 - Action not allowed');
      await expect.poll(() => page.title()).toBe('403 — Manifold');
      expect(await navigation.getByRole('link').allTextContents()).toEqual(userNavigation);
    }
    await checkScreen(page, 'error-403-user');
    await context.close();
  });

  it('shows the profile with the time zone grouped by offset and region and saves changes', async () => {
    const user = await createUser('USER');
    const { context, page } = await freshPage(browser);
    await logInAs(page, user);
    await page.getByRole('link', { name: 'Profile' }).first().click();
    await page.getByRole('heading', { name: 'Profile of Eve Tester' }).waitFor();
    await checkScreen(page, 'profile');

    await page.getByRole('textbox', { name: 'Time zone' }).click();
    await page.getByText('GMT+09:00 · Asia').waitFor();
    await page.getByRole('option', { name: 'Asia/Tokyo' }).click();
    await page.getByRole('textbox', { name: 'First name' }).fill('Evelyn');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your profile was saved').waitFor();
    await page.getByRole('heading', { name: 'Profile of Evelyn Tester' }).waitFor();

    await page.getByLabel('New password', { exact: false }).first().fill('E2e-new-password-2');
    await page.getByLabel('Confirm new password').fill('E2e-new-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Enter your current password to set a new one').waitFor();
    await page.getByLabel('Current password').fill('wrong-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The current password is incorrect').waitFor();
    await checkScreen(page, 'profile-password-error');
    await page.getByLabel('Current password').fill(user.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed').waitFor();
    await context.close();
  });

  it('shows the setup steps in order with the current step from the server', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByRole('heading', { name: 'Setup', level: 1 }).waitFor();
    const state = (await (await fetch(new URL('/ui/admin/state', page.url()))).json()) as { step: string };
    const statuses = await page
      .locator('[data-step]')
      .evaluateAll((nodes) => nodes.map((node) => [node.getAttribute('data-step'), node.getAttribute('data-status')]));
    const steps = ['database', 'crypto', 'signCert', 'cryptCert', 'configuration', 'storage', 'sso', 'finished', 'login'];
    expect(statuses.map(([step]) => step)).toEqual(steps);
    const current = steps.indexOf(state.step);
    expect(statuses.map(([, status]) => status)).toEqual(
      steps.map((_, index) => (index < current ? 'done' : index === current ? 'current' : 'pending')),
    );
    await page.getByTestId('database-config').getByText('SQLite (embedded)').waitFor();
    await checkScreen(page, 'setup');
    await context.close();
  });
});
