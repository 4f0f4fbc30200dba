import { randomBytes } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import {
  revisionPolicyList,
  type TAuthorizedPolicyListInput,
  type TDsiEntry,
  type TOrderDetail,
  type TPackageFile,
} from '@manifold/contract';
import { stpEnvelope as machineStpEnvelope, type StpEnvelopeOptions } from '@manifold/machine-simulator';
import { describeCertificate } from '../../src/crypto/certificates.js';
import type { DevelopmentCa } from '../../src/crypto/development-ca.js';
import { createPackage, provisionServer, testMachine, uploadForm, type TestMachine } from './packages-fixtures.js';
import type { PeerProcess } from './peer-network.js';
import type { TestApp } from './test-app.js';

/**
 * A provisioned server with a built design revision (one private and one public file) and an
 * approved machine with its own keys and certificates, registered through /apl/registration/add.
 */
export interface LicensingWorld {
  root: DevelopmentCa;
  /** Serial number of the server's signing certificate: the licensee key of orders made for it. */
  licenseeSerial: string;
  revision: TDsiEntry;
  privateFile: { fileId: string; bytes: Buffer };
  publicFile: { fileId: string; bytes: Buffer };
  machine: TestMachine;
  deviceId: string;
}

export async function uploadDesignFile(ctx: TestApp, dsiId: string, bytes: Buffer, isPublic: boolean): Promise<TPackageFile> {
  const response = await uploadForm(ctx, '/ui/package/files/upload', await ctx.adminToken(), {
    dsiId,
    isPublic: String(isPublic),
    file: { filename: isPublic ? 'readme.txt' : 'bracket.3mf', content: bytes, contentType: 'application/octet-stream' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TPackageFile>();
}

/**
 * A machine registered through /apl/registration/add and approved by an admin: at the app under
 * test, or at a peer process (whose calls are an admin's).
 */
export async function registerApprovedMachine(
  at: TestApp | Pick<PeerProcess, 'call'>,
  root: DevelopmentCa,
  identity: Parameters<typeof testMachine>[1] = {},
): Promise<{ machine: TestMachine; deviceId: string }> {
  const machine = await testMachine(root, identity);
  const registered = await at.call('POST', '/apl/registration/add', { body: await machine.request() });
  expect(registered.statusCode, registered.body).toBe(200);
  const deviceId = (registered.json() as { deviceId: string }).deviceId;
  const approval = { body: { id: deviceId, approve: true } };
  const approved =
    'adminToken' in at
      ? await at.call('POST', '/ui/device/approve', { token: await at.adminToken(), ...approval })
      : await at.call('POST', '/ui/device/approve', approval);
  expect(approved.statusCode, approved.body).toBe(200);
  return { machine, deviceId };
}

export async function licensingWorld(ctx: TestApp): Promise<LicensingWorld> {
  const { root, signingCertificatePem } = await provisionServer(ctx);
  const pkg = await createPackage(ctx);
  const privateBytes = randomBytes(70_000);
  const publicBytes = Buffer.from('Print at 0.1 mm <with> "care" & patience');
  const privateFile = await uploadDesignFile(ctx, pkg.dsiId, privateBytes, false);
  const publicFile = await uploadDesignFile(ctx, pkg.dsiId, publicBytes, true);
  const built = await ctx.call('POST', '/ui/package/build', { token: await ctx.adminToken(), body: { dsiId: pkg.dsiId } });
  expect(built.statusCode, built.body).toBe(200);
  const { machine, deviceId } = await registerApprovedMachine(ctx, root);
  return {
    root,
    licenseeSerial: describeCertificate(signingCertificatePem).serialNumber,
    revision: built.json<TDsiEntry>(),
    privateFile: { fileId: privateFile.fileId, bytes: privateBytes },
    publicFile: { fileId: publicFile.fileId, bytes: publicBytes },
    machine,
    deviceId,
  };
}

/**
 * Registers a `beforeAll` that builds the suite's licensing world; the object answered is that
 * world from then on (empty until it ran).
 */
export function suiteLicensingWorld(ctx: () => TestApp): LicensingWorld {
  const world = {} as LicensingWorld;
  beforeAll(async () => {
    Object.assign(world, await licensingWorld(ctx()));
  });
  return world;
}

let orderCounter = 0;

/** A valid policy list for the world's revision and this server as licensee. */
export function policyFor(
  world: LicensingWorld,
  overrides: Partial<TAuthorizedPolicyListInput> = {},
): TAuthorizedPolicyListInput {
  orderCounter += 1;
  return {
    ...revisionPolicyList(world.revision, { licensee: world.licenseeSerial, licensor: '0A1B2C' }, 'Acme Designs', {
      orderNumber: `PO-${orderCounter}-${randomBytes(3).toString('hex')}`,
      quantity: 10,
      expiration: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      purpose: 'Production run',
    }),
    ...overrides,
  };
}

export async function addOrder(ctx: TestApp, policy: unknown, token?: string): Promise<string> {
  const response = await ctx.call('POST', '/ui/order/add', {
    token: token ?? (await ctx.adminToken()),
    body: { authorizationAuthorizedPolicyList: policy },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ orderId: string }>().orderId;
}

export async function authorize(ctx: TestApp, body: Record<string, unknown>, token?: string): Promise<string> {
  const response = await ctx.call('POST', '/ui/authorization/authorize', { token: token ?? (await ctx.adminToken()), body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ authorizationId: string }>().authorizationId;
}

/**
 * The books of an order after simultaneous authorize requests of `sizes` (answered `statuses`, in
 * the same order) on an order of `quantity` whose serial numbers start at `firstSerial`: exactly
 * the granted quantity allocated, never more than the order; every refused request (420) asked
 * for more than is left; the granted authorizations' serial numbers one run from `firstSerial`,
 * each its quantity long, without gap or overlap. `order` must list every authorization.
 */
export function expectExactBooks(
  order: TOrderDetail,
  request: { quantity: number; firstSerial: number; sizes: number[]; statuses: number[] },
): void {
  const { quantity, firstSerial, sizes, statuses } = request;
  for (const status of statuses) expect([200, 420]).toContain(status);
  const granted = sizes.filter((_, i) => statuses[i] === 200);
  const allocated = granted.reduce((sum, size) => sum + size, 0);
  expect(order.allocatedQuantity).toBe(allocated);
  expect(allocated).toBeLessThanOrEqual(quantity);
  // a request refused when too little was left: none fits now
  expect(sizes.filter((_, i) => statuses[i] !== 200).every((size) => size > quantity - allocated)).toBe(true);
  const runs = order.authorizations.data
    .map((a) => ({ first: Number(a.serialNumbers!.first), last: Number(a.serialNumbers!.last), quantity: a.quantity }))
    .sort((x, y) => x.first - y.first);
  expect(runs).toHaveLength(granted.length);
  let next = firstSerial;
  for (const run of runs) {
    expect(run.first).toBe(next);
    expect(run.last - run.first + 1).toBe(run.quantity);
    next = run.last + 1;
  }
}

export type StpOptions = StpEnvelopeOptions;

/** A signed STP envelope for `path` (the simulator's {@link machineStpEnvelope}). */
export function stpEnvelope(
  machine: TestMachine,
  deviceId: string,
  path: string,
  body: Record<string, unknown>,
  options: StpOptions = {},
) {
  return machineStpEnvelope(machine.signingKeyPem, deviceId, path, body, options);
}

export async function stpCall(
  ctx: TestApp,
  world: Pick<LicensingWorld, 'machine' | 'deviceId'>,
  path: string,
  body: Record<string, unknown> = {},
  options: StpOptions = {},
) {
  return ctx.call('POST', path, { body: await stpEnvelope(world.machine, world.deviceId, path, body, options) });
}
