import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminCredentials,
  api,
  checkScreen,
  createUser,
  freshPage,
  launchBrowser,
  logIn,
  logInAs,
  logInAsAdmin,
  sessionCookie,
} from './support/browser';

/**
 * Mantine's classes (`m_…`) on the page that no stylesheet of the page defines: the page links
 * Mantine's styles per component (apps/console/src/app/styles), so a component missing from them
 * would show unstyled.
 */
function unstyledMantineClasses(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const defined = new Set<string>();
    for (const sheet of Array.from(document.styleSheets)) {
      for (const rule of Array.from(sheet.cssRules)) {
        for (const match of rule.cssText.matchAll(/\.(m_[0-9a-f]+)/g)) defined.add(match[1]!);
      }
    }
    const used = new Set<string>();
    for (const element of Array.from(document.querySelectorAll('[class]'))) {
      for (const name of Array.from(element.classList)) if (/^m_[0-9a-f]+$/.test(name)) used.add(name);
    }
    return [...used].filter((name) => !defined.has(name));
  });
}

describe('console: login and session', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('logs in from /login and lands on the home screen', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/login');
    await expect.poll(() => page.title()).toBe('Log in · Manifold');
    await checkScreen(page, 'login');
    const { username, password } = adminCredentials();
    await logIn(page, username, password);
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('heading', { name: 'Welcome, Site Administrator' }).waitFor();
    expect(await page.title()).toBe('Home · Manifold');
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'sessionToken');
    expect(cookie).toMatchObject({ httpOnly: false, sameSite: 'Lax', secure: false, path: '/' });
    await page
      .getByRole('cell', { name: /^\d+\.\d+/ })
      .first()
      .waitFor();
    await checkScreen(page, 'home');
    await context.close();
  });

  it('shows the server error for a wrong password and stays on /login', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/login');
    await logIn(page, adminCredentials().username, 'not-the-password');
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('Username or password is incorrect');
    expect(new URL(page.url()).pathname).toBe('/login');
    await checkScreen(page, 'login-wrong-password');
    await context.close();
  });

  it('lets a keyboard reach the show-password toggle after the password and press it with Enter and Space', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/login');
    const password = page.getByLabel('Password').and(page.locator('input'));
    await password.fill('typed secret');
    expect(await password.getAttribute('type')).toBe('password');
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null);
    expect(await focused()).toBe('Show password');
    await page.keyboard.press('Enter');
    expect(await password.getAttribute('type')).toBe('text');
    expect(await focused()).toBe('Hide password');
    await page.keyboard.press('Space');
    expect(await password.getAttribute('type')).toBe('password');
    expect(await focused()).toBe('Show password');
    // Enter on the toggle neither submits the form nor leaves the page
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await password.inputValue()).toBe('typed secret');
    await context.close();
  });

  it('loads no more script for a logged-out deep link than for /login itself', async () => {
    const scriptsOf = async (path: string) => {
      const { context, page } = await freshPage(browser);
      const scripts = new Set<string>();
      page.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.add(new URL(request.url()).pathname);
      });
      await page.goto(path);
      await page.waitForURL((url) => url.pathname === '/login');
      await page.getByLabel('Username').waitFor();
      await page.waitForLoadState('networkidle');
      await context.close();
      return [...scripts].sort();
    };
    const login = await scriptsOf('/login');
    for (const deepLink of ['/orders', '/users', '/packages/00000000-0000-4000-8000-000000000000']) {
      expect(await scriptsOf(deepLink), deepLink).toEqual(login);
    }
  });

  it('styles the screens before sign-in with their own stylesheet and the signed-in screens with the rest', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/orders/42/nothing-here');
    await page.getByTestId('error-view-text').waitFor();
    expect(await unstyledMantineClasses(page), 'error view').toEqual([]);
    await page.goto('/orders');
    await page.getByLabel('Username').waitFor();
    expect(await unstyledMantineClasses(page), 'login form').toEqual([]);
    await logIn(page, adminCredentials().username, 'not-the-password');
    await page.getByTestId('login-error').waitFor();
    expect(await unstyledMantineClasses(page), 'login error').toEqual([]);
    await logIn(page, adminCredentials().username, adminCredentials().password);
    await page.waitForURL((url) => url.pathname === '/orders');
    await page.getByRole('heading', { name: 'Orders' }).first().waitFor();
    expect(await unstyledMantineClasses(page), 'orders').toEqual([]);
    await context.close();
  });

  it('sends an anonymous visitor to /login with the message and returns them after login', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/users?search=adm');
    await page.waitForURL((url) => url.pathname === '/login');
    const url = new URL(page.url());
    expect(url.searchParams.get('redirect')).toBe('/users?search=adm');
    expect(await page.getByTestId('login-reason').textContent()).toBe('You must log in to continue');
    const { username, password } = adminCredentials();
    await logIn(page, username, password);
    await page.waitForURL((next) => next.pathname === '/users');
    expect(new URL(page.url()).search).toBe('?search=adm');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await context.close();
  });

  it('refuses an absolute return address outside the canonical address', async () => {
    const { context, page } = await freshPage(browser);
    await page.goto('/login?redirect=https%3A%2F%2Fevil.example%2Fsteal');
    expect(await page.getByTestId('unsafe-redirect').textContent()).toBe('Failed to redirect to unsafe target');
    await checkScreen(page, 'login-unsafe-target');
    const { username, password } = adminCredentials();
    await logIn(page, username, password);
    await page.waitForURL((url) => url.pathname === '/');
    expect(new URL(page.url()).origin).not.toBe('https://evil.example');
    await page.getByRole('alert').filter({ hasText: 'Failed to redirect to unsafe target' }).first().waitFor();
    await context.close();
  });

  it('sends a revoked session to /login with the expiry message, then back', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto('/profile');
    await page.getByRole('heading', { name: /^Profile of/ }).waitFor();
    const token = await sessionCookie(context);
    const revoked = await api('POST /ui/user/logout', { token, body: {} });
    expect(revoked.status).toBe(200);

    await page.reload();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(await page.getByTestId('login-reason').textContent()).toBe('Your session has expired. Log in to continue.');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/profile');
    await checkScreen(page, 'login-session-expired');
    const { username, password } = adminCredentials();
    await logIn(page, username, password);
    await page.waitForURL((url) => url.pathname === '/profile');
    await context.close();
  });

  it('sends a screen whose call meets a revoked session to /login with the expiry message', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    const token = await sessionCookie(context);
    await api('POST /ui/user/logout', { token, body: {} });
    // No reload: the cached session stays, so the next call the screens make meets the 401. A
    // background refetch may meet it before the click does, which must end the same way.
    const redirected = page.waitForURL((url) => url.pathname === '/login');
    await page
      .getByRole('link', { name: 'Users' })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    await redirected;
    expect(await page.getByTestId('login-reason').textContent()).toBe('Your session has expired. Log in to continue.');
    await context.close();
  });

  it('logs out in one tab and sends the other tab to /login', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    const other = await context.newPage();
    await other.goto('/profile');
    await other.getByRole('heading', { name: /^Profile of/ }).waitFor();

    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await other.waitForURL((url) => url.pathname === '/login');
    expect(await context.cookies()).not.toContainEqual(expect.objectContaining({ name: 'sessionToken' }));
    expect(await page.evaluate(() => localStorage.getItem('manifold.logout'))).toMatch(/^\d+$/);
    await context.close();
  });

  it('revokes the token on the server at logout', async () => {
    const { context, page } = await freshPage(browser);
    const user = await createUser();
    await logInAs(page, user);
    const token = await sessionCookie(context);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    const check = await api('GET /ui/user/login', { token });
    expect(check.status).toBe(401);
    await context.close();
  });
});
