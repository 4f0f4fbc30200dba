import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import type { TestCa } from './support/certificates';
import { ensureProvisioned, onePixelPng, registerMachine, trustedMachineRoot } from './support/machines';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

interface DeviceView {
  registrationState: string;
  disabled: boolean;
  deviceIdentity: { image: string | null };
}

async function device(deviceId: string): Promise<{ status: number; body: DeviceView }> {
  return api<DeviceView>(`GET /ui/device/fetch?deviceId=${deviceId}`, { token: await adminToken() });
}

describe('console: devices (ADMIN)', () => {
  let browser: Browser;
  let root: TestCa;
  let workDir: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    await ensureProvisioned();
    root = await trustedMachineRoot();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-devices-'));
  });
  afterAll(async () => {
    await browser.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('lists a machine registered through the partner interface, approves it, sets its picture, disables and deletes it', async () => {
    const machine = await registerMachine(root);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    await page.locator('label', { hasText: 'Not approved' }).click();
    const row = page.locator(`tr[data-device-id="${machine.deviceId}"]`);
    await row.locator('[data-state="Pending"]').waitFor();
    await checkScreen(page, 'devices');

    await row.getByRole('link', { name: machine.name }).click();
    await page.getByRole('heading', { name: machine.name, level: 1 }).waitFor();
    await page.getByTestId('device-identity').getByText(machine.serialNumber).waitFor();
    await page.getByTestId('device-parameters').locator('tr[data-parameter-id="bedTemperature"]').getByText('50 – 110').waitFor();
    await page.getByTestId('device-signing-certificate').getByRole('rowheader', { name: 'SHA-256 fingerprint' }).waitFor();
    await checkScreen(page, 'device-detail');

    await page.getByRole('button', { name: 'Approve' }).click();
    const approveDialog = page.getByRole('dialog', { name: 'Approve the machine?' });
    await approveDialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('device-state').locator('[data-state="Approved"]').waitFor();
    expect((await device(machine.deviceId)).body.registrationState).toBe('Approved');
    await expect.poll(() => page.getByRole('button', { name: 'Approve' }).count(), settle).toBe(0);

    const picture = path.join(workDir, 'machine.png');
    fs.writeFileSync(picture, await onePixelPng());
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Upload a picture…' }).click(),
    ]);
    await chooser.setFiles(picture);
    await page.getByRole('region', { name: 'Uploads' }).locator('[data-upload-status="finished"]').waitFor();
    await page.getByTestId('device-image').waitFor();
    await expect.poll(async () => (await device(machine.deviceId)).body.deviceIdentity.image, settle).not.toBeNull();

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable the machine?' }).getByRole('button', { name: 'Disable' }).click();
    await page.getByTestId('device-state').locator('[data-disabled="true"]').waitFor();
    expect((await device(machine.deviceId)).body.disabled).toBe(true);

    await page.getByRole('button', { name: 'Delete' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete the machine?' });
    await deleteDialog.getByRole('checkbox', { name: 'Delete even if it holds live authorizations' }).waitFor();
    await checkScreen(page, 'device-delete');
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL((url) => url.pathname === '/devices');
    const gone = await api<{ errorToken: string }>(`GET /ui/device/fetch?deviceId=${machine.deviceId}`, {
      token: await adminToken(),
    });
    expect(gone).toMatchObject({ status: 420, body: { errorToken: 'deviceIdNotValid' } });
    await expect.poll(() => page.locator(`tr[data-device-id="${machine.deviceId}"]`).count(), settle).toBe(0);
    await context.close();
  });

  it('rejects a pending machine and filters by approval', async () => {
    const machine = await registerMachine(root);
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.goto(`/devices/${machine.deviceId}`);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('dialog', { name: 'Reject the machine?' }).getByRole('button', { name: 'Reject' }).click();
    await page.getByTestId('device-state').locator('[data-state="Rejected"]').waitFor();
    expect((await device(machine.deviceId)).body.registrationState).toBe('Rejected');

    await page.getByRole('link', { name: 'All devices' }).click();
    await page.locator('label').getByText('Approved', { exact: true }).click();
    await page
      .getByTestId('devices-table')
      .getByText(/^\d+ machines?$/)
      .waitFor();
    await expect.poll(() => page.locator(`tr[data-device-id="${machine.deviceId}"]`).count(), settle).toBe(0);
    await page.locator('label', { hasText: 'Not approved' }).click();
    await page.locator(`tr[data-device-id="${machine.deviceId}"]`).locator('[data-state="Rejected"]').waitFor();
    await context.close();
  });
});
