import { revisionPolicyList } from '@manifold/contract';
import { adminToken, api, baseUrl } from './browser';
import type { TestCa } from './certificates';
import { createTestRootCa } from './certificates';

/**
 * The licensing world of the browser tests, built through the server's real interfaces: keys
 * and development-CA certificates for the server, a design package built into a revision, and
 * a machine with its own keys and certificates (the server integration suite's `testMachine`,
 * loaded by address to keep the server sources out of this project's DOM-typed check)
 * registered through `/apl/registration/add` and approved.
 */
export interface TestMachine {
  apl: { deviceIdentity: { id: string; name: string; serialNumber: string } };
  signingKeyPem: string;
  request(): Promise<Record<string, unknown>>;
}

interface PackagesFixturesModule {
  testMachine(root: TestCa): Promise<TestMachine>;
}

const fixturesPath = new URL('../../apps/server/test/helpers/packages-fixtures.ts', import.meta.url).href;

async function fixtures(): Promise<PackagesFixturesModule> {
  return (await import(/* @vite-ignore */ fixturesPath)) as PackagesFixturesModule;
}

async function check<T>(label: string, call: Promise<{ status: number; body: T }>): Promise<T> {
  const { status, body } = await call;
  if (status !== 200) throw new Error(`${label} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

async function multipart<T>(pathname: string, form: FormData): Promise<T> {
  const response = await fetch(`${baseUrl()}${pathname}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await adminToken()}` },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

interface CertificatesState {
  keyType: string | null;
  signing: { serialNumber: string } | null;
  encryption: { serialNumber: string } | null;
}

/** Keys and certificates for the server (whichever spec runs first provisions); answers the signing serial. */
export async function provisionedSigningSerial(): Promise<string> {
  const token = await adminToken();
  const state = await check('provision/certificates', api<CertificatesState>('GET /ui/admin/provision/certificates', { token }));
  if (state.keyType === null) await check('provision', api('POST /ui/admin/provision', { token, body: { keyType: 'EC' } }));
  if (state.keyType === null || state.signing === null || state.encryption === null) {
    await check('development-ca', api('POST /ui/admin/provision/development-ca', { token, body: {} }));
  }
  const after = await check('provision/certificates', api<CertificatesState>('GET /ui/admin/provision/certificates', { token }));
  if (!after.signing) throw new Error('the server has no signing certificate');
  return after.signing.serialNumber;
}

export interface DesignRevision {
  dsiId: string;
  dsiVersion: number;
  digestValue: string;
  designName: string;
}

/** A design package with one file, built into a revision (`package/build`). */
export async function builtRevision(): Promise<DesignRevision> {
  const token = await adminToken();
  const designName = `E2E bracket ${Date.now().toString(36)}`;
  const created = await check(
    'package/info',
    api<{ dsiId: string }>('POST /ui/package/info', {
      token,
      body: { designName, description: 'A bracket licensed in the browser test', companyName: 'Acme Designs' },
    }),
  );
  const form = new FormData();
  form.append('dsiId', created.dsiId);
  form.append('isPublic', 'false');
  form.append('file', new Blob([`solid bracket ${designName}\nendsolid\n`], { type: 'application/octet-stream' }), 'bracket.stl');
  await multipart('/ui/package/files/upload', form);
  const built = await check(
    'package/build',
    api<{ dsiId: string; dsiVersion: number; digestValue: string }>('POST /ui/package/build', {
      token,
      body: { dsiId: created.dsiId },
    }),
  );
  return { dsiId: built.dsiId, dsiVersion: built.dsiVersion, digestValue: built.digestValue, designName };
}

/** A machine with real keys and certificates under a network root the server trusts, registered and approved. */
export async function approvedMachine(): Promise<{ deviceId: string; name: string; serialNumber: string; machine: TestMachine }> {
  const root = await createTestRootCa('EC', `E2E Licensing Root ${Date.now().toString(36)}`);
  const anchor = new FormData();
  anchor.append('certificateType', 'trustAnchor');
  anchor.append('file', new Blob([root.certificatePem], { type: 'application/x-pem-file' }), 'root.pem');
  await multipart('/ui/admin/upload/provision', anchor);
  const machine = await (await fixtures()).testMachine(root);
  const registered = await check(
    'registration/add',
    api<{ deviceId: string }>('POST /apl/registration/add', { body: await machine.request() }),
  );
  await check(
    'device/approve',
    api('POST /ui/device/approve', { token: await adminToken(), body: { id: registered.deviceId, approve: true } }),
  );
  return {
    deviceId: registered.deviceId,
    name: machine.apl.deviceIdentity.name,
    serialNumber: machine.apl.deviceIdentity.serialNumber,
    machine,
  };
}

/**
 * An authorized policy list in the server's format (contract `ZAuthorizedPolicyList`) for the
 * revision, with this server as licensee, and a bound on the machine template's bed temperature.
 */
export function policyList(revision: DesignRevision, licenseeSerial: string, quantity: number) {
  return revisionPolicyList(revision, { licensee: licenseeSerial, licensor: '0A1B2C' }, 'Acme Designs', {
    orderNumber: `PO-E2E-${Date.now().toString(36)}`,
    quantity,
    expiration: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    purpose: 'Production run',
    deviceParameters: [{ parameterId: 'bedTemperature', type: 'integer', low: 55, high: 100, resetValue: 65 }],
    serialization: { type: 'Dec', prefix: 'SN-', start: 1, end: 1000 },
  });
}
