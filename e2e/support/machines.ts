import { adminToken, api, baseUrl } from './browser';
import type { TestCa } from './certificates';
import { createTestRootCa } from './certificates';

/**
 * Server set-up and machines for the browser tests, reusing the server integration suite's
 * fixtures (loaded by address, as in ./certificates, to keep the server sources out of this
 * project's DOM-typed check).
 */
interface TestMachine {
  apl: { deviceIdentity: { id: string; name: string; serialNumber: string } };
  request(): Promise<Record<string, unknown>>;
}

interface PackagesFixturesModule {
  testMachine(root: TestCa): Promise<TestMachine>;
  onePixelPng: Buffer;
}

const fixturesPath = new URL('../../apps/server/test/helpers/packages-fixtures.ts', import.meta.url).href;

async function fixtures(): Promise<PackagesFixturesModule> {
  return (await import(/* @vite-ignore */ fixturesPath)) as PackagesFixturesModule;
}

export async function onePixelPng(): Promise<Buffer> {
  return (await fixtures()).onePixelPng;
}

/** Uploads PEM text to `admin/upload/provision` as the browser would. */
export async function uploadProvision(certificateType: 'trustAnchor' | 'signing' | 'encryption', pem: string): Promise<void> {
  const form = new FormData();
  form.append('certificateType', certificateType);
  form.append('file', new Blob([pem], { type: 'application/x-pem-file' }), `${certificateType}.pem`);
  const response = await fetch(`${baseUrl()}/ui/admin/upload/provision`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await adminToken()}` },
    body: form,
  });
  if (response.status !== 200) throw new Error(`upload/provision answered ${response.status}: ${await response.text()}`);
}

/**
 * Keys and certificates for the server (the spec order of the suite is not fixed, so whichever
 * spec comes first provisions): EC keys, then the development CA's certificates.
 */
export async function ensureProvisioned(): Promise<void> {
  const token = await adminToken();
  const state = await api<{ keyType: string | null; signing: unknown; encryption: unknown }>(
    'GET /ui/admin/provision/certificates',
    { token },
  );
  if (state.status !== 200) throw new Error(`provision/certificates answered ${state.status}`);
  if (state.body.keyType === null) {
    const created = await api('POST /ui/admin/provision', { token, body: { keyType: 'EC' } });
    if (created.status !== 200) throw new Error(`provision answered ${created.status}`);
  }
  if (state.body.keyType === null || state.body.signing === null || state.body.encryption === null) {
    const issued = await api('POST /ui/admin/provision/development-ca', { token, body: {} });
    if (issued.status !== 200) throw new Error(`development-ca answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  }
}

/** A network root the server trusts, for machine certificates. */
export async function trustedMachineRoot(): Promise<TestCa> {
  const root = await createTestRootCa('EC', `E2E Machines Root ${Date.now().toString(36)}`);
  await uploadProvision('trustAnchor', root.certificatePem);
  return root;
}

/** Registers a machine through the partner interface with real certificates; answers its ids. */
export async function registerMachine(root: TestCa): Promise<{ deviceId: string; name: string; serialNumber: string }> {
  const machine = await (await fixtures()).testMachine(root);
  const { status, body } = await api<{ deviceId: string; registrationState: string }>('POST /apl/registration/add', {
    body: await machine.request(),
  });
  if (status !== 200) throw new Error(`registration answered ${status}: ${JSON.stringify(body)}`);
  return {
    deviceId: body.deviceId,
    name: machine.apl.deviceIdentity.name,
    serialNumber: machine.apl.deviceIdentity.serialNumber,
  };
}
