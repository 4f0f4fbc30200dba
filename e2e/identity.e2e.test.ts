import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenIdProvider, type TestOpenIdProvider } from '../apps/server/test/helpers/oidc-provider';
import { adminToken, api, baseUrl, checkScreen, freshPage, launchBrowser, logInAsAdmin, sessionCookie } from './support/browser';

function field(page: Page, label: string) {
  return page.getByRole('dialog').getByLabel(label, { exact: false }).first();
}

describe('console: single sign-on, authentication servers and OAuth clients (ADMIN)', () => {
  let browser: Browser;
  let idp: TestOpenIdProvider;
  beforeAll(async () => {
    browser = await launchBrowser();
    idp = await startOpenIdProvider(`${baseUrl()}/login/oidc`);
  });
  afterAll(async () => {
    await browser.close();
    await idp.close();
  });

  it('configures an OpenID Connect provider and logs a new user in through it from the login page', async () => {
    const name = `E2E login ${Date.now().toString(36)}`;
    const { context, page } = await freshPage(browser);
    try {
      await logInAsAdmin(page);
      await page.getByRole('link', { name: 'Identity providers' }).click();
      await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
      await checkScreen(page, 'identity-providers');

      await page.getByRole('button', { name: 'Add identity provider' }).click();
      await field(page, 'Name').fill(name);
      await field(page, 'Issuer').fill(idp.issuer);
      await field(page, 'Client ID').fill(idp.clientId);
      await field(page, 'Client secret').fill(idp.clientSecret);
      await expect.poll(() => field(page, 'Redirect URI').inputValue()).toBe(`${baseUrl()}/login/oidc`);
      await page.getByRole('dialog').getByLabel('Create an account on the first login').check();
      await checkScreen(page, 'identity-provider-form');
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Identity provider ${name} was saved`).waitFor();
      await page.locator(`tr[data-provider="${name}"]`).waitFor();

      const login = await freshPage(browser);
      try {
        const username = `e2e-sso-${Date.now().toString(36)}`;
        idp.signInAs(`subject-${username}`, { email: `${username}@example.com`, preferredUsername: username, givenName: 'Ada' });
        await login.page.goto('/login?redirect=%2Fprofile');
        const button = login.page.getByRole('link', { name: `Log in with ${name}` });
        await button.waitFor();
        await checkScreen(login.page, 'login-with-sso');
        await button.click();
        await login.page.waitForURL((url) => url.pathname === '/profile');
        const session = await api<{ userProfile: { username: string; useSso: boolean; role: string } }>('GET /ui/user/login', {
          token: await sessionCookie(login.context),
        });
        expect(session.body.userProfile).toMatchObject({ username, useSso: true, role: 'USER' });
        await checkScreen(login.page, 'profile-after-sso');
      } finally {
        await login.context.close();
      }
    } finally {
      const token = await adminToken();
      const config = await api<{ data: { id: string; name: string }[] }>('GET /ui/admin/sso', { token });
      for (const provider of config.body.data.filter((candidate) => candidate.name === name)) {
        await api('POST /ui/admin/sso/delete', { token, body: { id: provider.id } });
      }
      await context.close();
    }
  });

  it('adds and removes an authentication server, and adds an OAuth client whose secret is shown once', async () => {
    const { context, page } = await freshPage(browser);
    const issuer = `https://issuer-${Date.now().toString(36)}.e2e.example`;
    const clientId = `e2e-mes-${Date.now().toString(36)}`;
    await logInAsAdmin(page);

    await page.getByRole('link', { name: 'Authentication servers' }).click();
    await page.getByRole('heading', { name: 'Authentication servers', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add authentication server' }).click();
    await field(page, 'Issuer').fill(issuer);
    await field(page, 'JWK set URI').fill('http://127.0.0.1:9/jwks.json');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByText(`${issuer} is now trusted`).waitFor();
    await checkScreen(page, 'authentication-servers');
    await page.getByRole('button', { name: `Remove ${issuer}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`${issuer} is no longer trusted`).waitFor();
    await page.locator(`tr[data-issuer="${issuer}"]`).waitFor({ state: 'detached' });

    await page.getByRole('link', { name: 'OAuth clients' }).click();
    await page.getByRole('heading', { name: 'OAuth clients', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add client' }).click();
    await field(page, 'Client ID').fill(clientId);
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => field(page, 'Redirect URIs').getAttribute('aria-invalid')).toBe('true');
    await field(page, 'Redirect URIs').fill('https://mes.example/callback');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    const secret = page.getByTestId('client-secret');
    await secret.waitFor();
    const shown = (await secret.locator('pre, code').first().textContent())?.trim() ?? '';
    expect(shown.length).toBeGreaterThanOrEqual(40);
    await checkScreen(page, 'oauth-client-secret');
    await secret.getByRole('button', { name: 'Close' }).click();
    const row = page.locator(`tr[data-client="${clientId}"]`);
    await row.waitFor();
    expect(await page.content()).not.toContain(shown);

    await page.getByRole('button', { name: `Delete ${clientId}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Client ${clientId} was deleted`).waitFor();
    await row.waitFor({ state: 'detached' });
    await context.close();
  });
});
