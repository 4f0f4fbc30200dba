import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, checkScreenInBothThemes, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { builtRevision, policyList, provisionedSigningSerial, type DesignRevision } from './support/licensing';
import { reportingMachine, type ReportingMachine } from './support/trace';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };
/** The e2e server is shared by every spec (the quality spec runs jobs too): a job id of this spec's own. */
const jobId = `trace-job-${randomUUID()}`;

async function call<T>(route: string, body?: unknown): Promise<T> {
  const { status, body: answer } = await api<T>(route, { token: await adminToken(), body });
  if (status !== 200) throw new Error(`${route} answered ${status}: ${JSON.stringify(answer)}`);
  return answer;
}

describe('console: a machine\u2019s job in events, audit, builds, parts and the part\u2019s history', () => {
  let browser: Browser;
  let revision: DesignRevision;
  let machine: ReportingMachine;
  let orderId: string;
  let orderNumber: string;
  let authorizationId: string;
  let events: string[];
  let partId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    const licenseeSerial = await provisionedSigningSerial();
    revision = await builtRevision();
    machine = await reportingMachine();
    const policy = policyList(revision, licenseeSerial, 10);
    orderNumber = policy.orderNumber;
    ({ orderId } = await call<{ orderId: string }>('POST /ui/order/add', { authorizationAuthorizedPolicyList: policy }));
    ({ authorizationId } = await call<{ authorizationId: string }>('POST /ui/authorization/authorize', {
      orderId,
      deviceId: machine.deviceId,
      quantity: 2,
    }));
    await call('POST /ui/authorization/send', { orderId, authorizationId });
    // the machine's side: the licence arrives, one part is made and inspected
    events = [
      await machine.report('licenceReceivedByMachine', { authorizationId }),
      await machine.report('jobStarted', { authorizationId, jobId, quantity: 1 }),
      await machine.report('qualityCheckPassed', { authorizationId, jobId, data: { height: '12.01' } }),
      await machine.report('jobEnded', { authorizationId, jobId }),
    ];
    const parts = await call<{ data: { id: string; serialNumber: string | null }[] }>(
      `GET /ui/part/list?dsiId=${revision.dsiId}`,
    );
    partId = parts.data[0]?.id ?? '';
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows the job in events, audit, builds and parts, and the part\u2019s whole history with its exports', async () => {
    expect(partId).not.toBe('');
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });

    // events: the job's events, each verified
    await nav.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    for (const eventId of events) await page.locator(`tr[data-event-id="${eventId}"] [data-status="verified"]`).waitFor(settle);
    // each check reads whole: a badge was narrower than its word ("VERIFI…")
    const clipped = await page
      .getByTestId('events-table')
      .locator('.mantine-Badge-label')
      .evaluateAll((labels) => labels.filter((label) => label.scrollWidth > label.clientWidth).map((label) => label.textContent));
    expect(clipped).toEqual([]);
    await checkScreen(page, 'events');
    // each row exports its machine's signed history (a Trace instance's only way to a forwarded machine's)
    const [rowDownload] = await Promise.all([
      page.waitForEvent('download'),
      page
        .locator(`tr[data-event-id="${events[0]}"]`)
        .getByRole('button', { name: `Export the signed events of machine ${machine.deviceId}` })
        .click(),
    ]);
    expect(rowDownload.suggestedFilename()).toBe(`machine-${machine.deviceId}-events.json`);
    const rowHistory = JSON.parse(fs.readFileSync((await rowDownload.path()) ?? '', 'utf8')) as {
      deviceId: string;
      events: { eventId: string }[];
    };
    expect(rowHistory.deviceId).toBe(machine.deviceId);
    expect(rowHistory.events.map((event) => event.eventId)).toEqual(events);

    // audit: filtered by kind, the machine's job ended on the order
    await nav.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Event kind' }).fill('Manufacturing job ended');
    await page.getByRole('option', { name: 'Manufacturing job ended' }).click();
    await page.waitForURL((url) => url.searchParams.get('kind') === 'jobEnded', settle);
    const ended = page.locator(`tr[data-event="jobEnded"][data-subject="${orderId}"]`);
    await ended.waitFor(settle);
    expect(await ended.textContent()).toContain(`device:${machine.deviceId}`);
    await checkScreen(page, 'audit');
    // days in the user's time zone: nothing from a day to come, the record up to today
    await page.getByLabel('From (day)').fill('2099-01-01');
    await page.getByTestId('table-empty').getByText('No audit events match the filters.', { exact: true }).waitFor(settle);
    await page.getByLabel('From (day)').fill('');
    const { userProfile } = await call<{ userProfile: { timeZone: string } }>('GET /ui/user/login');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: userProfile.timeZone }).format(new Date());
    await page.getByLabel('To (day, included)').fill(today);
    await ended.waitFor(settle);
    // the same trail in Chinese
    await context.addCookies([{ name: 'locale', value: 'zh', url: page.url() }]);
    await page.reload();
    await ended.getByText('制造作业已结束').waitFor(settle);
    await context.clearCookies({ name: 'locale' });
    await page.reload();
    await page.getByRole('heading', { name: 'Audit trail', level: 1 }).waitFor(settle);

    // builds and parts
    await nav.getByRole('link', { name: 'Builds' }).click();
    await page.getByRole('heading', { name: 'Builds', level: 1 }).waitFor();
    await page.locator(`tr[data-job-id="${jobId}"] [data-state="ended"]`).waitFor(settle);
    await checkScreen(page, 'builds');
    // the design filter suggests this server's designs by name and filters by the picked one's id
    const designFilter = page.getByRole('textbox', { name: 'Design package ID' });
    await designFilter.fill(revision.designName.slice(0, 6));
    await page.getByRole('option', { name: `${revision.designName} (${revision.dsiId})` }).click();
    expect(await designFilter.inputValue()).toBe(revision.dsiId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('dsiId') === revision.dsiId, settle);
    await page.locator(`tr[data-job-id="${jobId}"] [data-state="ended"]`).waitFor(settle);
    await nav.getByRole('link', { name: 'Parts' }).click();
    await page.getByRole('heading', { name: 'Parts', level: 1 }).waitFor();
    const partRow = page.locator(`tr[data-part-id="${partId}"]`);
    await partRow.waitFor(settle);
    await checkScreen(page, 'parts');
    await partRow.getByRole('link', { name: 'SN-1' }).click();

    // the part's history: every step, in order, each linked to its screen
    await page.getByRole('heading', { name: 'Part SN-1', level: 1 }).waitFor(settle);
    const timeline = page.getByTestId('part-timeline');
    await expect
      .poll(() => timeline.locator('[data-step]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-step'))))
      .toEqual([
        'design',
        'order',
        'authorization',
        'machine',
        'job',
        'event',
        'event',
        'event',
        'event',
        'values',
        'inspection',
      ]);
    expect(
      await timeline
        .locator('[data-event-kind]')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-event-kind'))),
    ).toEqual(['licenceReceivedByMachine', 'jobStarted', 'qualityCheckPassed', 'jobEnded']);
    const step = (name: string) => timeline.locator(`[data-step="${name}"]`);
    await step('design').getByText(revision.designName).waitFor();
    await step('order').getByText(`Order ${orderNumber}`).waitFor();
    await step('machine').getByText(machine.name).waitFor();
    await step('values').getByText('No values recorded yet.', { exact: true }).waitFor();
    await step('inspection').getByText('Quality check passed').waitFor();
    const links = {
      design: `/packages/${revision.dsiId}`,
      order: `/orders/${orderId}`,
      authorization: `/authorizations?authorizationId=${authorizationId}&orderId=${orderId}`,
      machine: `/devices/${machine.deviceId}`,
      job: `/builds?dsiId=${revision.dsiId}`,
    };
    for (const [name, href] of Object.entries(links)) expect(await step(name).getByRole('link').getAttribute('href')).toBe(href);
    await checkScreenInBothThemes(page, 'part-history');

    // one click: the history as a file, and the machine's signed events for verify-history
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export history (JSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`part-${partId}-history.json`);
    const exported = JSON.parse(fs.readFileSync((await download.path()) ?? '', 'utf8')) as {
      part: { id: string; serialNumber: string };
      order: { orderId: string };
      events: { eventId: string }[];
    };
    expect(exported.part).toMatchObject({ id: partId, serialNumber: 'SN-1' });
    expect(exported.order.orderId).toBe(orderId);
    expect(exported.events.map((event) => event.eventId)).toEqual(events);
    const [machineDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export the machine\u2019s signed events' }).click(),
    ]);
    const history = JSON.parse(fs.readFileSync((await machineDownload.path()) ?? '', 'utf8')) as {
      format: string;
      events: { eventId: string }[];
    };
    expect(history.format).toBe('manifold-trace-history/1');
    expect(history.events.map((event) => event.eventId)).toEqual(events);

    const [epcisDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export EPCIS 2.0 (JSON-LD)' }).click(),
    ]);
    expect(epcisDownload.suggestedFilename()).toBe(`part-${partId}.epcis.jsonld`);
    const epcis = JSON.parse(fs.readFileSync((await epcisDownload.path()) ?? '', 'utf8')) as {
      type: string;
      epcisBody: { eventList: { type: string; eventID: string; 'manifold:eventId'?: string }[] };
    };
    expect(epcis.type).toBe('EPCISDocument');
    expect(epcis.epcisBody.eventList.map((event) => event.type)).toEqual([
      'TransformationEvent',
      'ObjectEvent',
      'ObjectEvent',
      'ObjectEvent',
      'ObjectEvent',
    ]);
    expect(epcis.epcisBody.eventList.slice(2).map((event) => event['manifold:eventId'])).toEqual(events.slice(1));
    for (const event of epcis.epcisBody.eventList) expect(event.eventID).toMatch(/^ni:\/\/\/sha-256;[0-9a-f]{64}\?ver=CBV2\.0$/);

    // a step's link opens its screen
    await step('order').getByRole('link').click();
    await page.getByRole('heading', { name: `Order ${orderNumber}`, level: 1 }).waitFor(settle);
    // machine data: the machine's file and one uploaded from the console, each with its digest
    const dtlId = await machine.sendData(authorizationId, 'e2e-build.csv', 'layer,temp\n1,210\n');
    await nav.getByRole('link', { name: 'Machine data' }).click();
    await page.getByRole('heading', { name: 'Machine data', level: 1 }).waitFor();
    await page.locator(`tr[data-dtl-id="${dtlId}"]`).getByText('e2e-build.csv').waitFor(settle);
    await page.getByRole('textbox', { name: 'Machine', exact: true }).click();
    await page.getByRole('option', { name: `${machine.name} (${machine.serialNumber})` }).click();
    await page.getByLabel('Authorization ID').fill(authorizationId);
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Choose a file…' }).click(),
    ]);
    await chooser.setFiles({ name: 'console-scan.txt', mimeType: 'text/plain', buffer: Buffer.from('scan data') });
    const uploaded = page.getByTestId('machine-data-table').locator('tr', { hasText: 'console-scan.txt' });
    await uploaded.waitFor(settle);
    expect(await uploaded.locator('code[title]').last().getAttribute('title')).toBe(
      createHash('sha256').update('scan data').digest('hex'),
    );
    await checkScreen(page, 'machine-data');

    await context.close();
  });
});
