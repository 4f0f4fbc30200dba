import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, type DemoFile, type DemoKey, spawnDemo } from '../scripts/demo/spawn-demo';
import { checkScreen, freshPage, launchBrowser, logInAs } from './support/browser';

/** The demo's machines and instances under a loaded test machine: poll for up to a minute and a half. */
const settle = { timeout: 90_000 };

/**
 * Issue 16's walkthrough against `npm run demo` (scripts/demo/demo.ts in a temporary folder on
 * free ports, the console built by the e2e global setup): the upstream console shows the demo's
 * design, its order and the authorization sent to the downstream Manage; the downstream console
 * shows the order that came from upstream and a part its machine printed, the part's history from
 * design to machine and job, and an inspection recorded in the console's form lands on that history.
 */
describe('console: the demo network, from design to inspection', () => {
  let demo: ChildProcess | undefined;
  let serverPids: number[] = [];
  let dir = '';
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    if (demo?.pid && alive(demo.pid)) {
      demo.kill('SIGTERM');
      const deadline = Date.now() + 15_000;
      while (alive(demo.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      if (alive(demo.pid)) demo.kill('SIGKILL');
    }
    for (const pid of serverPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  async function startDemo(): Promise<DemoFile> {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-demo-walk-'));
    // the e2e global setup has built the console
    const started = await spawnDemo(dir, ['--no-console-build'], (child) => (demo = child));
    serverPids = started.serverPids;
    return started.state;
  }

  async function consolePage(state: DemoFile, key: DemoKey): Promise<Page> {
    const { page } = await freshPage(browser!, `http://${state.hosts[key]}:${state.ports[key]}`);
    await logInAs(page, { username: 'admin', password: state.adminPasswords[key] });
    return page;
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Main navigation' });

  it('follows a part from its design upstream, through the downstream Manage, to the printer and its inspection', async () => {
    const state = await startDemo();
    browser = await launchBrowser();
    const [orderId] = state.orderIds;
    const [dsiId] = state.dsiIds;

    // upstream: the design package, its order, and the authorization sent to the downstream Manage
    const upstream = await consolePage(state, 'upstream');
    await nav(upstream).getByRole('link', { name: 'Packages' }).click();
    await upstream.getByRole('heading', { name: 'Design packages', level: 1 }).waitFor();
    const packageRow = upstream.locator(`tr[data-dsi-id="${dsiId}"]`);
    await packageRow.getByRole('link', { name: 'L Bracket' }).waitFor(settle);
    await checkScreen(upstream, 'demo-upstream-packages');
    await packageRow.getByRole('link', { name: 'L Bracket' }).click();
    await upstream.getByRole('heading', { name: 'L Bracket', level: 1 }).waitFor(settle);
    await checkScreen(upstream, 'demo-upstream-package');

    await nav(upstream).getByRole('link', { name: 'Orders' }).click();
    await upstream.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    const orderRow = upstream.locator(`tr[data-order-id="${orderId}"]`);
    expect(await orderRow.getAttribute('data-order-number', settle)).toBe('DEMO-LB-1');
    await checkScreen(upstream, 'demo-upstream-orders');
    await orderRow.getByRole('link', { name: orderId!.slice(0, 8) }).click();
    await upstream.getByRole('heading', { name: 'Order DEMO-LB-1', level: 1 }).waitFor(settle);
    const handedDown = upstream
      .locator('tr[data-authorization-id]')
      .filter({ hasText: `Manage instance ${state.manageId.slice(0, 8)}` });
    await handedDown.waitFor(settle);
    expect(await handedDown.getAttribute('data-state')).toBe('sent');
    await checkScreen(upstream, 'demo-upstream-order');

    // downstream: the order that came from upstream
    const downstream = await consolePage(state, 'downstream');
    await nav(downstream).getByRole('link', { name: 'Orders' }).click();
    await downstream.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    const downstreamRow = downstream.locator(`tr[data-order-id="${state.downstreamOrderId}"]`);
    expect(await downstreamRow.getAttribute('data-order-number', settle)).toBe('DEMO-LB-1');
    await checkScreen(downstream, 'demo-downstream-orders');
    await downstreamRow.getByRole('link', { name: state.downstreamOrderId.slice(0, 8) }).click();
    await downstream.getByRole('heading', { name: 'Order DEMO-LB-1', level: 1 }).waitFor(settle);
    await checkScreen(downstream, 'demo-downstream-order');

    // a part made by the downstream machine (the Parts screen, reloaded until one is listed)
    // whose job ended: a simulated job may still be printing, or fail or be cancelled (the
    // machine's failure and cancel rates), and such a part cannot be inspected
    const inspectable = 'tr[data-part-id]:is([data-qms-state="MANUFACTURED"], [data-qms-state="NO_QMS_STEP"])';
    let partId: string | null = null;
    const deadline = Date.now() + settle.timeout;
    while (!partId) {
      await nav(downstream).getByRole('link', { name: 'Parts' }).click();
      await downstream.getByRole('heading', { name: 'Parts', level: 1 }).waitFor();
      const row = downstream.locator(inspectable).first();
      if (await row.isVisible()) partId = await row.getAttribute('data-part-id');
      else if (Date.now() > deadline) throw new Error('no inspectable part was made at the downstream Manage');
      else {
        await nav(downstream).getByRole('link', { name: 'Home' }).click();
        await downstream.waitForTimeout(1000);
      }
    }
    await checkScreen(downstream, 'demo-downstream-parts');
    await downstream.locator(`tr[data-part-id="${partId}"]`).getByRole('link').first().click();
    await downstream.getByRole('heading', { name: /^Part /, level: 1 }).waitFor(settle);
    const timeline = downstream.getByTestId('part-timeline');
    const step = (name: string) => timeline.locator(`[data-step="${name}"]`);
    await expect
      .poll(
        () => timeline.locator('[data-step]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-step'))),
        settle,
      )
      .toEqual(expect.arrayContaining(['design', 'order', 'authorization', 'machine', 'job', 'event', 'inspection']));
    const steps = await timeline
      .locator('[data-step]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-step')));
    expect(steps.slice(0, 5)).toEqual(['design', 'order', 'authorization', 'machine', 'job']);
    await step('design').getByText('Design revision: L Bracket, version 1').waitFor();
    await step('order').getByText('Order DEMO-LB-1').waitFor();
    expect(await step('order').getByRole('link').getAttribute('href')).toBe(`/orders/${state.downstreamOrderId}`);
    await step('machine')
      .getByText(/^Machine: Downstream Printer \d+ \(DOWNSTREAM-PRINTER-\d+\)$/)
      .waitFor();
    await timeline.locator('[data-event-kind="jobStarted"]').waitFor();
    await step('inspection').getByText('No inspection recorded').waitFor();
    await checkScreen(downstream, 'demo-downstream-part');

    // record a passing inspection in the console's form, then see it on the part's timeline
    await nav(downstream).getByRole('link', { name: 'Quality' }).click();
    await downstream.getByRole('heading', { name: 'Quality', level: 1 }).waitFor();
    await downstream.getByRole('main').getByRole('link', { name: 'Inspect a part' }).click();
    await downstream.getByRole('heading', { name: 'Inspect a part', level: 1 }).waitFor();
    const target = downstream.getByRole('form', { name: 'What to inspect' });
    await target.getByRole('textbox', { name: 'Part id' }).fill(partId);
    await target.getByRole('button', { name: 'Load' }).click();
    const form = downstream.getByRole('form', { name: 'Inspect a part' });
    await form.getByText('The order has no quality parameters.').waitFor(settle);
    // the segmented control's radio is visually hidden under its label
    await form
      .locator('label')
      .filter({ hasText: /^Passed$/ })
      .click();
    await expect.poll(() => form.getByRole('radio', { name: 'Passed' }).isChecked()).toBe(true);
    await form.getByRole('textbox', { name: 'Technician' }).fill('Grace');
    await checkScreen(downstream, 'demo-downstream-inspect');
    await form.getByRole('button', { name: 'Record inspection' }).click();
    await downstream.getByText('Inspection recorded (1 part)').waitFor(settle);

    await downstream.goto(`/parts/${partId}`);
    await step('inspection').getByText('Quality check passed').waitFor(settle);
    await timeline.locator('[data-event-kind="qualityCheckPassed"]').waitFor(settle);
    await checkScreen(downstream, 'demo-downstream-part-inspected');
  }, 600_000);
});
