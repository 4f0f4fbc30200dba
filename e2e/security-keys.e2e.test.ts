import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, adminToken, baseUrl, checkScreen, createUser, logIn } from './support/browser';
import { launchBrowser } from './support/browser';

/** The console on http://localhost:<port>: browsers take no IP address as a WebAuthn relying party. */
function localhostUrl(): string {
  return baseUrl().replace('://127.0.0.1:', '://localhost:');
}

async function pageWithVirtualAuthenticator(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: localhostUrl(), viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'usb',
      hasResidentKey: false,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

describe('console: security keys and escalation', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('registers a key on the profile page, refuses a sensitive action until the session is escalated, then performs it', async () => {
    const admin = await createUser('ADMIN');
    const victim = await createUser('USER');
    const { context, page } = await pageWithVirtualAuthenticator(browser);
    await page.goto('/login');
    await logIn(page, admin.username, admin.password);
    await page.waitForURL((url) => url.pathname === '/');

    await page.goto('/profile');
    const keys = page.getByTestId('security-keys');
    await keys.getByText('No security keys yet.', { exact: true }).waitFor();
    await keys.getByLabel('Name of the new key').fill('Virtual key');
    await keys.getByRole('button', { name: 'Add security key' }).click();
    await page.getByText('Security key Virtual key added').waitFor();
    await page.getByTestId('security-keys-table').getByRole('cell', { name: 'Virtual key', exact: true }).waitFor();
    await checkScreen(page, 'profile-security-keys');

    // deleting a user is sensitive: refused without escalation, and the prompt opens
    await page.goto('/users');
    await page.getByLabel('Search users').fill(victim.username);
    const row = page.locator(`tr[data-username="${victim.username}"]`);
    await row.waitFor();
    await page.getByRole('button', { name: `Delete ${victim.username}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    const prompt = page.getByRole('dialog', { name: 'Confirm with your security key' });
    await prompt.waitFor();
    await checkScreen(page, 'escalation-prompt');
    const token = await adminToken();
    const stillThere = await api<{ totalNumOfItems: number }>(`GET /ui/user/list?search=${victim.username}`, { token });
    expect(stillThere.body.totalNumOfItems).toBe(1);

    await prompt.getByRole('button', { name: 'Use security key' }).click();
    await page.getByText('Confirmed with your security key. Repeat the action.').waitFor();
    await prompt.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: `Delete ${victim.username}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`User ${victim.username} was deleted`).waitFor();
    await row.waitFor({ state: 'detached' });

    // "security key required for all administrators": on, then off again (off is sensitive: this session is escalated)
    await page.getByRole('link', { name: 'Access roles' }).click();
    const requirement = page.getByRole('switch', { name: /Require a security-key confirmation from every administrator/ });
    await expect.poll(() => requirement.isEnabled()).toBe(true);
    expect(await requirement.isChecked()).toBe(false);
    await requirement.click({ force: true });
    await page.getByText('Every administrator now confirms sensitive actions with a security key').waitFor();
    expect((await api<{ requiredForAdmins: boolean }>('GET /ui/admin/escalation', { token })).body).toEqual({
      requiredForAdmins: true,
    });
    await checkScreen(page, 'escalation-policy');
    await requirement.click({ force: true });
    await page.getByText('Only holders of a security key confirm sensitive actions').waitFor();
    expect((await api<{ requiredForAdmins: boolean }>('GET /ui/admin/escalation', { token })).body).toEqual({
      requiredForAdmins: false,
    });
    await context.close();
  });

  it('lets an administrator add, change and delete access policies and roles', async () => {
    const admin = await createUser('ADMIN');
    const member = await createUser('USER');
    const { context, page } = await pageWithVirtualAuthenticator(browser);
    await page.goto('/login');
    await logIn(page, admin.username, admin.password);
    await page.waitForURL((url) => url.pathname === '/');

    await page.getByRole('link', { name: 'Access policies' }).click();
    await page.getByRole('heading', { name: 'Access policies', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add policy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Policy name').fill('Internal W');
    await page.getByRole('option', { name: 'Internal Wired' }).click();
    await dialog.getByRole('textbox', { name: 'Constraints' }).click();
    await page.getByRole('option', { name: 'CUI download' }).click();
    await dialog.getByRole('textbox', { name: 'Incoming IP addresses' }).fill('10.0.0.0/8');
    await dialog.getByRole('textbox', { name: 'Incoming IP addresses' }).press('Enter');
    await dialog.getByRole('textbox', { name: 'Incoming IP addresses' }).fill('127.0.0.1');
    await dialog.getByRole('textbox', { name: 'Incoming IP addresses' }).press('Enter');
    await checkScreen(page, 'access-policy-add');
    await dialog.getByRole('button', { name: 'Add policy' }).click();
    await page.getByText('Access policy Internal Wired added').waitFor();
    const policy = page.locator('tr[data-policy="Internal Wired"]');
    await policy.getByRole('cell', { name: '10.0.0.0/8, 127.0.0.1' }).waitFor();
    await checkScreen(page, 'access-policies');

    // change it: the same form, filled with the policy
    await page.getByRole('button', { name: 'Change access policy Internal Wired' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Change access policy' });
    expect(await editDialog.getByLabel('Policy name').inputValue()).toBe('Internal Wired');
    await editDialog.getByLabel('Policy name').fill('Internal WiFi');
    await page.keyboard.press('Escape');
    await checkScreen(page, 'access-policy-edit');
    await editDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Access policy Internal WiFi changed').waitFor();
    await page.locator('tr[data-policy="Internal WiFi"]').getByRole('cell', { name: '10.0.0.0/8, 127.0.0.1' }).waitFor();

    await page.getByRole('link', { name: 'Access roles' }).click();
    await page.getByRole('heading', { name: 'Access roles', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add role' }).click();
    const members = page.getByRole('dialog').getByRole('textbox', { name: 'Members' });
    await members.fill(member.username);
    await page.getByRole('option', { name: member.username, exact: false }).first().click();
    await page.keyboard.press('Escape');
    await checkScreen(page, 'access-role-add');
    await page.getByRole('dialog').getByRole('button', { name: 'Add role' }).click();
    await page.getByText('Access role user added').waitFor();
    const role = page.locator('tr[data-role="user"]');
    await role.getByText(member.username).waitFor();
    await checkScreen(page, 'access-roles');

    // change its members: the list given replaces the stored one
    await page.getByRole('button', { name: 'Change access role user for cui-download' }).click();
    const roleDialog = page.getByRole('dialog', { name: 'Change access role' });
    await roleDialog.getByRole('textbox', { name: 'Members' }).fill(admin.username);
    await page.getByRole('option', { name: admin.username, exact: false }).first().click();
    await page.keyboard.press('Escape');
    await roleDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Access role user changed').waitFor();
    await role.getByText(admin.username).waitFor();
    await role.getByText(member.username).waitFor();

    await page.getByRole('button', { name: 'Delete access role user for cui-download' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Access role user deleted').waitFor();
    await page.getByRole('link', { name: 'Access policies' }).click();
    await page.getByRole('button', { name: 'Delete access policy Internal WiFi' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Access policy Internal WiFi deleted').waitFor();
    await context.close();
  });
});
