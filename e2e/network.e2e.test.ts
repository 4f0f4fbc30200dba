import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen, checkScreenInBothThemes, freshPage, launchBrowser, logInAs } from './support/browser';
import { createTestRootCa } from './support/certificates';
import { startPeerInstance, type PeerInstance } from './support/peers';

/**
 * Two real server processes of their own (the e2e servers' keys depend on which spec
 * provisioned it first): both provisioned under one test root CA, so their certificate exchange
 * verifies both ways. An admin registers B as a downstream instance on A's console and approves
 * it on B's console; both then show Approved.
 */
describe('console: peer network between two instances', () => {
  let browser: Browser;
  const instances: PeerInstance[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    const root = await createTestRootCa('EC', 'E2E network root');
    const started = await Promise.allSettled([
      startPeerInstance('Upstream Works', root),
      startPeerInstance('Downstream Works', root),
    ]);
    for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }, 240_000);

  afterAll(async () => {
    await browser.close();
    await Promise.all(instances.map((instance) => instance.stop()));
  });

  async function openNetwork(instance: PeerInstance): Promise<Page> {
    const { page } = await freshPage(browser, instance.baseUrl);
    await logInAs(page, { username: instance.adminUsername, password: instance.adminPassword });
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Network' }).click();
    // the area's title is the page's one h1; the page chosen in it is headed a level below
    await page.getByRole('heading', { name: 'Manage instances', level: 2 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Network']);
    return page;
  }

  function row(page: Page, siteName: string) {
    return page.getByTestId('manage-instances-table').locator('tr', { hasText: siteName });
  }

  it('registers B as downstream from A, approves it on B, and both show Approved', async () => {
    const [upstream, downstream] = instances as [PeerInstance, PeerInstance];

    const a = await openNetwork(upstream);
    await a.getByRole('button', { name: 'Register Manage instance' }).click();
    const form = a.getByRole('dialog', { name: 'Register a Manage instance' });
    await form.getByRole('textbox', { name: /Address/ }).fill(downstream.baseUrl);
    await checkScreen(a, 'network-register');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const onA = row(a, 'Downstream Works');
    await onA.getByText('Pending').waitFor();
    // A asked: only B decides, and A says so
    expect(await onA.getByRole('button', { name: 'Approve Downstream Works' }).isDisabled()).toBe(true);
    await onA.getByText('This instance asked for the registration: only the peer approves or rejects it.').waitFor();
    await checkScreen(a, 'network-manage-pending');

    const b = await openNetwork(downstream);
    await b.locator('label', { hasText: 'Upstream' }).click();
    const onB = row(b, 'Upstream Works');
    await onB.getByText('Pending').waitFor();
    await onB.getByRole('button', { name: 'Approve Upstream Works' }).click();
    const confirm = b.getByRole('dialog', { name: 'Approve registration' });
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await onB.getByText('Approved').waitFor();
    await checkScreenInBothThemes(b, 'network-manage-approved');

    // B told A before it changed: A shows Approved once it reads its list again
    await a.reload();
    await row(a, 'Downstream Works').getByText('Approved').waitFor();
    await row(a, 'Downstream Works').getByRole('button', { name: 'Certificates of Downstream Works' }).click();
    const details = a.getByTestId('peer-details');
    await details.getByRole('heading', { name: 'Signing certificates' }).waitFor();
    await checkScreen(a, 'network-certificates');

    const states = await Promise.all([
      upstream.call<{ data: { registrationState: string; initiator: boolean }[] }>('GET', '/ui/manage/list?registrationType=all'),
      downstream.call<{ data: { registrationState: string; initiator: boolean }[] }>(
        'GET',
        '/ui/manage/list?registrationType=all',
      ),
    ]);
    expect(states.map((list) => list.data.map(({ registrationState, initiator }) => ({ registrationState, initiator })))).toEqual(
      [[{ registrationState: 'Approved', initiator: true }], [{ registrationState: 'Approved', initiator: false }]],
    );
  });

  it('shows the Trace instances page and a Protect token pair once', async () => {
    const [upstream] = instances as [PeerInstance];
    const page = await openNetwork(upstream);
    const pages = page.getByRole('navigation', { name: 'Network pages' });
    await pages.getByRole('link', { name: 'Trace instances' }).click();
    await page.getByRole('heading', { name: 'Trace instances', level: 2 }).waitFor();
    await page.getByTestId('trace-instances-table').waitFor();
    await checkScreenInBothThemes(page, 'network-trace');

    await pages.getByRole('link', { name: 'Protect instances' }).click();
    await page.getByRole('heading', { name: 'Protect instances', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'New token pair' }).click();
    const tokens = page.getByTestId('protect-tokens');
    await tokens.getByText('Shown once').waitFor();
    const token1 = (await tokens.locator('[data-token="token1"]').textContent()) ?? '';
    expect(token1.length).toBeGreaterThan(10);
    await checkScreen(page, 'network-protect-tokens');
    await tokens.getByRole('button', { name: 'I have copied both' }).click();
    await page.getByTestId('protect-instances-table').getByText(token1).waitFor();
    await checkScreen(page, 'network-protect');
  });
});
