import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, checkScreen, freshPage, launchBrowser, logInAsAdmin } from './support/browser';
import { createTestRootCa, signCsr } from './support/certificates';

/** Server round trips under a loaded test machine: poll for up to ten seconds. */
const settle = { timeout: 10_000 };

interface CertificatesState {
  keyType: 'RSA' | 'EC' | null;
  signing: { subject: string; fingerprintSha256: string; development: boolean } | null;
  encryption: { subject: string; fingerprintSha256: string; development: boolean } | null;
  trustAnchors: { subject: string; fingerprintSha256: string; development: boolean }[];
}

async function certificatesState(): Promise<CertificatesState> {
  const { status, body } = await api<CertificatesState>('GET /ui/admin/provision/certificates', { token: await adminToken() });
  expect(status).toBe(200);
  return body;
}

async function setupStep(): Promise<string> {
  return (await api<{ step: string }>('GET /ui/admin/state')).body.step;
}

/** Downloads the CSRs the form asks for and returns the file's name and text. */
async function downloadCsr(page: Page, kind: string): Promise<{ name: string; text: string }> {
  const form = page.getByRole('form', { name: 'Certificate signing requests' });
  await form.getByRole('textbox', { name: 'Requests' }).click();
  await page.getByRole('option', { name: kind }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), form.getByRole('button', { name: 'Download' }).click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
}

/** Chooses the certificate kind and hands a file to the upload button (through the browser's file chooser). */
async function uploadCertificate(page: Page, kind: string, file: string): Promise<void> {
  const section = page.getByTestId('setup-upload');
  await section.getByRole('textbox', { name: 'Certificate' }).click();
  await page.getByRole('option', { name: kind, exact: true }).click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    section.getByRole('button', { name: 'Choose a PEM file…' }).click(),
  ]);
  await chooser.setFiles(file);
}

function trayRow(page: Page, fileName: string) {
  return page.getByRole('region', { name: 'Uploads' }).locator('[data-upload-status]').filter({ hasText: fileName });
}

describe('console: setup wizard, keys and certificates (ADMIN)', () => {
  let browser: Browser;
  let workDir: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-e2e-certs-'));
  });
  afterAll(async () => {
    await browser.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('creates keys, re-keys after confirmation, downloads CSRs, uploads a root and a certificate, then uses the development CA', async () => {
    const { context, page } = await freshPage(browser);
    await logInAsAdmin(page);
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByRole('heading', { name: 'Keys', level: 2, exact: true }).waitFor();
    const keys = page.getByTestId('setup-keys');

    // Another spec may have created keys on the shared server already; then only re-keying applies.
    if ((await certificatesState()).keyType === null) {
      expect(await setupStep()).toBe('crypto');
      await expect.poll(() => keys.getByRole('radio', { name: 'RSA (3072 bits)' }).isChecked(), settle).toBe(true);
      await checkScreen(page, 'setup-crypto-keys');
      await keys.getByRole('radio', { name: 'EC (P-256)' }).check();
      await keys.getByRole('button', { name: 'Create keys' }).click();
      await page.getByText('The EC keys were created').waitFor();
      await keys.getByTestId('key-type').getByText('EC (P-256)').waitFor();
      expect((await certificatesState()).keyType).toBe('EC');
    }

    await keys.getByRole('button', { name: 'Replace keys…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace the server keys' });
    await dialog.waitFor();
    await dialog.getByText('Both installed certificates are removed at once', { exact: false }).waitFor();
    await dialog.getByRole('radio', { name: 'RSA (3072 bits)' }).check();
    await checkScreen(page, 'setup-crypto-rekey');
    await dialog.getByRole('button', { name: 'Replace keys and remove certificates' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await keys.getByTestId('key-type').getByText('RSA (3072 bits)').waitFor();
    await page.getByTestId('certificate-signing-missing').waitFor();
    const afterRekey = await certificatesState();
    expect(afterRekey).toMatchObject({ keyType: 'RSA', signing: null, encryption: null });
    expect(await setupStep()).toBe('signCert');

    const signingCsr = await downloadCsr(page, 'Signing key');
    expect(signingCsr.name).toBe('manifold-manage-signing.csr');
    expect(signingCsr.text.match(/-----BEGIN CERTIFICATE REQUEST-----/g)).toHaveLength(1);
    const bothCsrs = await downloadCsr(page, 'Both keys (one PEM file)');
    expect(bothCsrs.name).toBe('manifold-manage-csrs.pem');
    expect(bothCsrs.text.match(/-----BEGIN CERTIFICATE REQUEST-----/g)).toHaveLength(2);

    // The network CA of this test signs the downloaded signing CSR.
    const networkRoot = await createTestRootCa('EC', `E2E Network Root ${Date.now()}`);
    const signingCertificate = await signCsr(networkRoot, signingCsr.text);
    const rootFile = path.join(workDir, 'network-root.pem');
    const signingFile = path.join(workDir, 'signing-certificate.pem');
    fs.writeFileSync(rootFile, networkRoot.certificatePem);
    fs.writeFileSync(signingFile, signingCertificate);

    // Before its root is trusted the certificate is refused, and the reason shows at the upload.
    await uploadCertificate(page, 'Signing certificate', signingFile);
    await trayRow(page, 'signing-certificate.pem').and(page.locator('[data-upload-status="failed"]')).waitFor();
    const uploadError = page.getByTestId('setup-upload').getByRole('alert');
    await uploadError.waitFor();
    expect((await uploadError.textContent())?.length).toBeGreaterThan(10);
    await checkScreen(page, 'setup-crypto-upload-refused');
    // Choosing the same file again sends it again (a file input that keeps its file fires no change).
    await uploadCertificate(page, 'Signing certificate', signingFile);
    await expect.poll(() => trayRow(page, 'signing-certificate.pem').count(), settle).toBe(2);

    await uploadCertificate(page, 'Network root (trust anchor)', rootFile);
    await trayRow(page, 'network-root.pem').and(page.locator('[data-upload-status="finished"]')).waitFor();
    const anchors = page.getByTestId('setup-certificates');
    await anchors.getByRole('heading', { name: /E2E Network Root/ }).waitFor();

    await uploadCertificate(page, 'Signing certificate', signingFile);
    await page.locator('[data-upload-status="finished"]').filter({ hasText: 'signing-certificate.pem' }).waitFor();
    const signingCard = page.getByTestId('certificate-signing');
    await signingCard.waitFor();
    const installed = await certificatesState();
    expect(installed.signing?.development).toBe(false);
    await signingCard.getByText(installed.signing?.subject ?? '', { exact: true }).waitFor();
    expect(await signingCard.getByTestId('certificate-signing-fingerprint').textContent()).toBe(
      installed.signing?.fingerprintSha256,
    );
    for (const label of ['Subject', 'Issuer', 'Serial number', 'Valid from', 'Valid until', 'Key usage', 'SHA-256 fingerprint']) {
      await signingCard.getByRole('rowheader', { name: label }).waitFor();
    }
    await signingCard.getByText('digitalSignature').waitFor();
    expect(await setupStep()).toBe('cryptCert');

    const development = page.getByTestId('setup-development-ca');
    await development.getByText('Development only — never in production').waitFor();
    await development.getByRole('button', { name: 'Issue development certificates' }).click();
    const confirm = page.getByRole('dialog', { name: 'Issue development certificates?' });
    await confirm.getByRole('button', { name: 'Issue development certificates' }).click();
    await page.getByText('Development certificates were installed').waitFor();
    const encryptionCard = page.getByTestId('certificate-encryption');
    await encryptionCard.getByText('Development only', { exact: true }).waitFor();
    await page.getByTestId('certificate-signing').getByText('Development only', { exact: true }).waitFor();
    const final = await certificatesState();
    expect(final.signing?.development).toBe(true);
    expect(final.encryption?.development).toBe(true);
    expect(final.trustAnchors.some((anchor) => anchor.development)).toBe(true);
    expect(final.trustAnchors.some((anchor) => anchor.subject.includes('E2E Network Root'))).toBe(true);
    // the crypto steps are done; what comes next depends on what the other specs of the shared
    // e2e server did first (server settings, storage provider): the step the server reports, and the
    // wizard showing exactly that step
    const steps = ['database', 'crypto', 'signCert', 'cryptCert', 'configuration', 'storage', 'sso', 'finished', 'login'];
    const next = await setupStep();
    expect(['configuration', 'storage', 'login']).toContain(next);
    await page
      .getByTestId('setup-current-step')
      .getByText(`Step ${steps.indexOf(next) + 1} of 9`)
      .waitFor();
    await checkScreen(page, 'setup-crypto-installed');
    await context.close();
  });
});
