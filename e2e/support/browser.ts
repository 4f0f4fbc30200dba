import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { chromiumArgs } from './chromium';
import { ownServer } from './own-server';

/** The browsers the running test file launched and has not closed (for the screens of a failed test). */
const launched = new Set<Browser>();

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  launched.add(browser);
  browser.on('disconnected', () => launched.delete(browser));
  return browser;
}

/**
 * Saves a full-page screenshot and the address of every page still open in the browsers of this
 * test file, under `test-results/e2e-failures/`, named after `label` (a failed test): what the
 * screen showed when a step gave up. Answers the files written.
 */
export async function saveOpenPages(label: string): Promise<string[]> {
  const directory = path.resolve('test-results', 'e2e-failures');
  const stem = label
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
  const pages = [...launched].flatMap((browser) => browser.contexts().flatMap((context) => context.pages()));
  const written: string[] = [];
  fs.mkdirSync(directory, { recursive: true });
  for (const [index, page] of pages.entries()) {
    const file = path.join(directory, `${stem}-${index + 1}`);
    try {
      await page.screenshot({ path: `${file}.png`, fullPage: true, timeout: 10_000 });
      fs.writeFileSync(`${file}.txt`, `${page.url()}\n`);
      written.push(`${file}.png`);
    } catch {
      // a page closing or crashed has no screen to keep
    }
  }
  return written;
}

export function baseUrl(): string {
  return ownServer().baseUrl;
}

export function adminCredentials(): { username: string; password: string } {
  const { adminUsername, adminPassword } = ownServer();
  return { username: adminUsername, password: adminPassword };
}

/**
 * What the server's Content-Security-Policy refused on each page, and the page descriptions too
 * long for the page head (every screen check expects none).
 */
const cspViolations = new WeakMap<Page, string[]>();

/** The server each context of `freshPage` was opened on (`logInAs` logs in there). */
const contextServers = new WeakMap<BrowserContext, string>();

/** A fresh context (no cookies, no storage) per test; on this file's e2e server unless `url` names another. */
export async function freshPage(browser: Browser, url = baseUrl()): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  contextServers.set(context, url);
  const page = await context.newPage();
  const refused: string[] = [];
  cspViolations.set(page, refused);
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) refused.push(message.text());
    // the page head's warning of a description over 160 characters (components/page-head.tsx)
    if (message.type() === 'warning' && message.text().startsWith('Page description is')) refused.push(message.text());
  });
  return { context, page };
}

/** Fills the login form (the page is on /login) and submits it. */
export async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  // the input, not its show-password toggle (whose name says "password" too)
  await page.getByLabel('Password').and(page.locator('input')).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/**
 * Starts a session as the login screen does — `POST /ui/user/login`, its token in the console's
 * `sessionToken` cookie — and opens the home screen in it. The login screen itself is what
 * auth.e2e.test.ts drives (`logIn`); every other test starts from a session this way, one page load
 * instead of the login screen's and the home screen's (about 1.5 s a test under CI's load).
 */
export async function logInAs(page: Page, credentials: { username: string; password: string }): Promise<void> {
  const server = contextServers.get(page.context());
  if (!server) throw new Error('logInAs: the page was not opened by freshPage');
  const response = await fetch(`${server}/ui/user/login`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = (await response.json()) as { sessionToken?: string };
  if (response.status !== 200 || !body.sessionToken) {
    throw new Error(`login of ${credentials.username} answered ${response.status}: ${JSON.stringify(body)}`);
  }
  await page.context().addCookies([{ name: 'sessionToken', value: body.sessionToken, url: server, sameSite: 'Lax' }]);
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
}

export async function logInAsAdmin(page: Page): Promise<void> {
  await logInAs(page, adminCredentials());
}

const screenshotDir = path.resolve(import.meta.dirname, '../../test-results/screenshots');

/** Waits until no alert is in its fade transition (axe measures a half-transparent one as low contrast). */
async function alertsSettled(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-alert-type]')].every((node) => getComputedStyle(node).opacity === '1'),
  );
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core with every rule on the whole page, run in the page itself: axe is injected once per
 * document (a full load drops it, a route change of the console keeps it). @axe-core/playwright's
 * AxeBuilder injected the 550 kB source twice per check and finished each in a new blank page,
 * about 2.5 s of a 3 s check; the console has no frames, which is all that machinery served.
 */
async function runAxe(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  // every rule runs; only violations are reported in full (axe's own option for speed: the passes,
  // the inapplicable and the incomplete, which nothing here reads, keep one node each)
  return page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  );
}

async function seriousViolations(page: Page) {
  const results = await runAxe(page);
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
    }));
}

/** Whether `checkScreen` keeps a full-page screenshot of every screen it checks (`E2E_SCREENSHOTS=1`). */
const keepScreenshots = process.env.E2E_SCREENSHOTS === '1';

/**
 * Checks the screen with axe (no serious or critical violation) and, with `E2E_SCREENSHOTS=1`, keeps
 * a full-page screenshot of it (about 0.4 s a screen). An alert may start
 * fading while axe runs: a finding is confirmed by a second run once alerts are settled, so only what
 * stays wrong fails.
 */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await alertsSettled(page);
  if (keepScreenshots) {
    fs.mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
  }
  let serious = await seriousViolations(page);
  if (serious.length > 0) {
    await page.waitForTimeout(300);
    await alertsSettled(page);
    serious = await seriousViolations(page);
  }
  expect(serious, `accessibility of ${name}`).toEqual([]);
  expect(cspViolations.get(page) ?? [], `content security policy and page head on ${name}`).toEqual([]);
}

/** Switches the theme from the user menu (English console), as a user would, and waits until it is shown. */
export async function switchTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: theme === 'dark' ? 'Dark' : 'Light' }).click();
  await expect.poll(() => page.evaluate(() => document.body.className)).toContain(`theme-${theme}`);
  await page.getByRole('menu').waitFor({ state: 'hidden' });
}

/**
 * `checkScreen` in both themes: the screen as it is (light), then switched to the dark theme
 * (`<name>-dark`), then back to light, so contrast is checked on both backgrounds.
 */
export async function checkScreenInBothThemes(page: Page, name: string): Promise<void> {
  await checkScreen(page, name);
  await switchTheme(page, 'dark');
  await checkScreen(page, `${name}-dark`);
  await switchTheme(page, 'light');
}

/** Calls the console API directly, as a test fixture would. */
export async function api<T>(
  route: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const [method, pathname] = route.split(' ') as [string, string];
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl()}${pathname}`, {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

export async function adminToken(): Promise<string> {
  const { username, password } = adminCredentials();
  const { status, body } = await api<{ sessionToken: string }>('POST /ui/user/login', { body: { username, password } });
  if (status !== 200) throw new Error(`admin login answered ${status}`);
  return body.sessionToken;
}

let sequence = 0;

/** Creates a USER account through the API and returns its credentials. */
export async function createUser(role: 'USER' | 'ADMIN' = 'USER'): Promise<{ username: string; password: string }> {
  sequence += 1;
  const username = `e2e-${role.toLowerCase()}-${Date.now().toString(36)}-${sequence}`;
  const password = 'E2e-user-password-1';
  const { status, body } = await api('POST /ui/user/add', {
    token: await adminToken(),
    body: {
      username,
      password,
      firstName: 'Eve',
      lastName: 'Tester',
      email: `${username}@example.com`,
      role,
      timeZone: 'Europe/London',
      language: 'en_US',
    },
  });
  if (status !== 200) throw new Error(`user/add answered ${status}: ${JSON.stringify(body)}`);
  return { username, password };
}

export async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((candidate) => candidate.name === 'sessionToken');
  if (!cookie) throw new Error('no session cookie');
  return cookie.value;
}
