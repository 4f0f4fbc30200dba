import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TDsiEntry, TOrderDetail, TPage } from '@manifold/contract';
import {
  AuthorizationRefused,
  DesignRefused,
  Fleet,
  openDesignFile,
  readAuthorization,
  SimulatedMachine,
  type MachineBehaviour,
  until,
  writeCaFile,
} from '@manifold/machine-simulator';
import { describeCertificate } from '../src/crypto/certificates.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { addOrder, authorize, policyFor, uploadDesignFile, type LicensingWorld } from './helpers/licensing-fixtures.js';
import { createPackage, provisionServer, threeMfWithThumbnail } from './helpers/packages-fixtures.js';
import { describeEachDatabase, type TestApp } from './helpers/test-app.js';
import { testRoot } from './helpers/test-pki.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
// what `npm run machine` runs: the simulator's command line from its bundle, built when stale
const cliPath = path.join(repoRoot, 'scripts/machine.mjs');

/** Fast machines: jobs of milliseconds, frequent failures, cancellations and pauses. */
const FAST: Partial<MachineBehaviour> = {
  jobMs: [5, 25],
  pauseMs: [1, 5],
  pauseRate: 0.3,
  failureRate: 0.2,
  cancelRate: 0.1,
  partsPerJob: [1, 3],
  pollMs: 50,
  uploadMachineData: true,
};

interface World {
  url: string;
  root: DevelopmentCa;
  licensing: Pick<LicensingWorld, 'revision' | 'licenseeSerial'>;
  privateBytes: Buffer;
}

/** The app listening on a loopback port (the simulator speaks HTTP), provisioned, with a built design. */
async function simulatorWorld(ctx: TestApp): Promise<World> {
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { root, signingCertificatePem } = await provisionServer(ctx);
  const pkg = await createPackage(ctx);
  const privateBytes = threeMfWithThumbnail();
  await uploadDesignFile(ctx, pkg.dsiId, privateBytes, false);
  await uploadDesignFile(ctx, pkg.dsiId, Buffer.from('Print at 0.2 mm, PLA, 215 C'), true);
  const built = await ctx.call('POST', '/ui/package/build', { token: await ctx.adminToken(), body: { dsiId: pkg.dsiId } });
  expect(built.statusCode, built.body).toBe(200);
  return {
    url: address,
    root,
    licensing: { revision: built.json<TDsiEntry>(), licenseeSerial: describeCertificate(signingCertificatePem).serialNumber },
    privateBytes,
  };
}

describeEachDatabase('the machine simulator against a real server', (ctx) => {
  let world: World;
  /** Built by the first test that needs it, so each test also runs alone (`-t`). */
  const ready = async () => (world ??= await simulatorWorld(ctx()));
  const admin = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await ctx().call(method, url, { token: await ctx().adminToken(), ...(body === undefined ? {} : { body }) });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json<Record<string, unknown>>();
  };
  const approve = (deviceId: string) => admin('POST', '/ui/device/approve', { id: deviceId, approve: true });
  const send = (orderId: string, authorizationId: string) =>
    admin('POST', '/ui/authorization/send', { orderId, authorizationId });
  const all = async <T>(url: string): Promise<T[]> => {
    const rows: T[] = [];
    for (let pageNum = 1; ; pageNum += 1) {
      const page = (await admin(
        'GET',
        `${url}${url.includes('?') ? '&' : '?'}pageNum=${pageNum}&numberOfItems=500`,
      )) as unknown as TPage<T>;
      rows.push(...page.data);
      if (pageNum >= page.totalNumOfPages) return rows;
    }
  };

  it('a fleet of 20 registers, is approved and prints an order to exhaustion; quantities, parts and events add up exactly', async () => {
    await ready();
    const fleet = new Fleet({
      serverUrl: world.url,
      ca: world.root,
      count: 20,
      namePrefix: `Fleet ${randomBytes(2).toString('hex')}`,
      behaviour: FAST,
    });
    const deviceIds = await fleet.register();
    expect(new Set(deviceIds).size).toBe(20);
    const running = fleet.run();
    try {
      // not approved yet: every machine waits
      await until('all waiting for approval', () => (fleet.states().awaitingApproval === 20 ? true : undefined), 120_000, 50);
      for (const deviceId of deviceIds) await approve(deviceId);

      const perMachine = 6;
      const orderId = await addOrder(
        ctx(),
        policyFor(world.licensing as LicensingWorld, {
          quantity: 20 * perMachine,
          serialization: { type: 'Dec', prefix: 'F-', start: 1, end: 1000 },
        }),
      );
      const authorizationIds = new Map<string, string>();
      for (const deviceId of deviceIds) {
        const authorizationId = await authorize(ctx(), { orderId, deviceId, quantity: perMachine });
        authorizationIds.set(deviceId, authorizationId);
        await send(orderId, authorizationId);
      }
      await until(
        'every licence used up',
        () => (fleet.machines.every((machine) => machine.isDone()) ? true : undefined),
        240_000,
      );
    } finally {
      await fleet.stop();
      await running;
    }
    const stats = fleet.stats();
    expect(stats.errors).toBe(0);
    expect(stats.refused).toBe(0);
    expect(fleet.states()).toEqual({ offline: 20 });

    // the order: everything handed out, the parts made still allocated, every lost part counted (Strict)
    const order = (await admin('GET', `/ui/order/list?numberOfItems=100`)) as unknown as TPage<{
      orderIdentity: { orderId: string };
      quantity: number;
      allocatedQuantity: number;
      expiredQuantity: number;
      remainingQuantity: number;
    }>;
    const mine = order.data.find((row) => row.quantity === 120)!;
    expect(mine).toMatchObject({
      quantity: 120,
      allocatedQuantity: stats.partsMade,
      expiredQuantity: stats.partsLost,
      remainingQuantity: 0,
    });
    expect(stats.partsMade + stats.partsLost).toBe(120);

    // parts: one per part, serial numbers only for made ones, each once
    const parts = await all<{ serialNumber: string | null; partQmsState: string; deviceId: string; counted: boolean }>(
      `/ui/part/list?dsiId=${world.licensing.revision.dsiId}`,
    );
    const made = parts.filter((part) => part.partQmsState === 'NO_QMS_STEP');
    const lost = parts.filter((part) => part.partQmsState === 'FAILURE' || part.partQmsState === 'CANCELED');
    expect(made).toHaveLength(stats.partsMade);
    expect(lost).toHaveLength(stats.partsLost);
    expect(parts).toHaveLength(120);
    expect(new Set(made.map((part) => part.serialNumber)).size).toBe(stats.partsMade);
    expect(made.every((part) => /^F-\d+$/.test(part.serialNumber ?? ''))).toBe(true);
    expect(lost.every((part) => part.serialNumber === null && part.counted)).toBe(true);

    // builds: one per job
    const builds = await all<{ state: string }>(`/ui/build/list?dsiId=${world.licensing.revision.dsiId}`);
    expect(builds).toHaveLength(stats.jobsEnded + stats.jobsFailed + stats.jobsCancelled);
    expect(builds.filter((build) => build.state === 'ended')).toHaveLength(stats.jobsEnded);

    // events: each machine's whole history stored, in one unbroken chain
    for (const machine of fleet.machines) {
      const history = (await admin('GET', `/ui/event/export?deviceId=${machine.deviceId}`)) as {
        events: { chainFinding: string | null; sequence: number }[];
      };
      expect(history.events).toHaveLength(machine.stats.events);
      expect(history.events.every((event) => event.chainFinding === null)).toBe(true);
      expect(Object.values(machine.made).reduce((sum, count) => sum + count, 0)).toBe(machine.stats.partsMade);
    }
    // machine data: one file per ended job
    const files = await all<{ deviceId: string }>('/ui/dtl/list');
    expect(files.filter((file) => deviceIds.includes(file.deviceId))).toHaveLength(stats.machineDataFiles);
    expect(stats.machineDataFiles).toBe(stats.jobsEnded);
  }, 300_000);

  it('a revoked authorization stops the machine before its next job', async () => {
    await ready();
    let gate: Promise<void> | undefined;
    let revoked = false;
    let orderId = '';
    let authorizationId = '';
    const seen: string[] = [];
    const machine = new SimulatedMachine({
      serverUrl: world.url,
      ca: world.root,
      behaviour: { ...FAST, failureRate: 0, cancelRate: 0, pauseRate: 0, partsPerJob: [1, 1] },
      onEvent: (event) => seen.push(event.kind),
      beforeJob: async () => {
        if (machine.stats.jobsEnded === 1 && !revoked) {
          revoked = true;
          gate = admin('POST', '/ui/authorization/revoke', { orderId, authorizationId }).then(() => undefined);
        }
        await gate;
      },
    });
    const deviceId = await machine.register();
    await approve(deviceId);
    orderId = await addOrder(ctx(), policyFor(world.licensing as LicensingWorld, { quantity: 10 }));
    authorizationId = await authorize(ctx(), { orderId, deviceId, quantity: 10 });
    await send(orderId, authorizationId);
    const running = machine.run();
    try {
      await until(
        'idle after the revocation',
        () => (revoked && seen.at(-1) === 'machineIdle' && seen.includes('jobEnded') ? true : undefined),
        60_000,
        50,
      );
    } finally {
      await machine.stop();
      await running;
    }
    expect(seen.filter((kind) => kind === 'jobStarted')).toHaveLength(1);
    // the revocation it received is on its record once, between its job and its idleness (then stopped)
    expect(seen.slice(seen.indexOf('jobEnded'))).toEqual(['jobEnded', 'revocationReceived', 'machineIdle', 'machineOffline']);
    const received = await ctx()
      .app.services.database.db.selectFrom('trace_events')
      .select(['kind', 'authorization_id'])
      .where('device_id', '=', deviceId)
      .where('kind', '=', 'revocationReceived')
      .execute();
    expect(received).toEqual([{ kind: 'revocationReceived', authorization_id: authorizationId }]);
    expect(machine.made).toEqual({ [authorizationId]: 1 });
    const detail = (await admin('GET', `/ui/order/fetch?orderId=${orderId}`)) as unknown as TOrderDetail;
    expect(detail.authorizations.data.find((entry) => entry.id === authorizationId)?.state).toBe('revoked');
    const builds = await all<{ authorizationId: string }>(`/ui/build/list?dsiId=${world.licensing.revision.dsiId}`);
    expect(builds.filter((build) => build.authorizationId === authorizationId)).toHaveLength(1);
  }, 120_000);

  it('refuses an authorization signed under another root, and a design file whose bytes were changed', async () => {
    await ready();
    const stranger = await testRoot('Another network');
    const machine = new SimulatedMachine({
      serverUrl: world.url,
      ca: world.root,
      trustAnchors: [stranger.certificatePem],
      behaviour: { ...FAST, partsPerJob: [1, 1] },
    });
    const deviceId = await machine.register();
    await approve(deviceId);
    const orderId = await addOrder(ctx(), policyFor(world.licensing as LicensingWorld, { quantity: 2 }));
    const authorizationId = await authorize(ctx(), { orderId, deviceId, quantity: 2 });
    await send(orderId, authorizationId);
    await machine.waitForApproval();
    await machine.sync();
    expect(machine.stats.refused).toBe(1);
    expect(machine.isDone()).toBe(true);
    expect(machine.stats.jobsEnded + machine.stats.jobsFailed).toBe(0);

    // the same authorization read with the right root: then every changed byte of the design is refused
    const xml = await (
      await machine.client.stp(machine.credentials, deviceId, '/stp/authorization/download', { authorizationId })
    ).text();
    const trust = {
      trustAnchors: [world.root.certificatePem],
      deviceId,
      encryptionCertificatePem: machine.credentials.apl.encryptionCertificate,
    };
    const terms = readAuthorization(xml, trust);
    expect(() => readAuthorization(xml.replace('<Quantity>2</Quantity>', '<Quantity>200</Quantity>'), trust)).toThrow(
      AuthorizationRefused,
    );
    expect(() => readAuthorization(xml, { ...trust, deviceId: '00000000-0000-4000-8000-000000000000' })).toThrow(
      AuthorizationRefused,
    );
    for (const file of terms.design.files) {
      const response = await machine.client.stp(machine.credentials, deviceId, '/stp/design/download', {
        authorizationId,
        fileId: file.fileId,
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const plain = await openDesignFile(bytes, file, machine.credentials.encryptionKeyPem);
      if (!file.isPublic) expect(plain.equals(world.privateBytes)).toBe(true);
      const tampered = Buffer.from(bytes);
      tampered[tampered.length >> 1]! ^= 0x01;
      await expect(openDesignFile(tampered, file, machine.credentials.encryptionKeyPem)).rejects.toThrow(DesignRefused);
    }
    await machine.stop();
  }, 120_000);

  it('npm run machine: a fleet process registers, prints its licences and goes offline on SIGTERM', async () => {
    await ready();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-machines-'));
    const caFile = path.join(dir, 'network-ca.pem');
    await writeCaFile(caFile, world.root);
    const child = spawn(
      process.execPath,
      [
        cliPath,
        '--server',
        world.url,
        '--ca',
        caFile,
        '--count',
        '2',
        '--name',
        `Cli ${randomBytes(2).toString('hex')}`,
        '--state-dir',
        path.join(dir, 'state'),
        '--job-ms',
        '10-30',
        '--poll-ms',
        '50',
        '--failure-rate',
        '0',
        '--cancel-rate',
        '0',
        '--status-seconds',
        '0',
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deviceIds = await until(
        'both machines registered',
        () => {
          const ids = [...output.matchAll(/registered as ([0-9a-f-]{36})/g)].map((match) => match[1]!);
          return ids.length === 2 ? ids : undefined;
        },
        120_000,
      );
      const orderId = await addOrder(ctx(), policyFor(world.licensing as LicensingWorld, { quantity: 6 }));
      for (const deviceId of deviceIds) {
        await approve(deviceId);
        await send(orderId, await authorize(ctx(), { orderId, deviceId, quantity: 3 }));
      }
      await until(
        'both licences printed',
        async () => {
          const parts = await all<{ deviceId: string; partQmsState: string }>(
            `/ui/part/list?dsiId=${world.licensing.revision.dsiId}`,
          );
          const made = parts.filter((part) => deviceIds.includes(part.deviceId) && part.partQmsState === 'NO_QMS_STEP');
          return made.length === 6 ? made : undefined;
        },
        120_000,
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('stopped:');
      for (const deviceId of deviceIds) {
        const history = (await admin('GET', `/ui/event/export?deviceId=${deviceId}`)) as { events: { eventId: string }[] };
        const last = (await admin('GET', `/ui/event/list?numberOfItems=500`)) as unknown as TPage<{
          eventId: string;
          event: { kind: string; deviceId: string };
        }>;
        const kinds = last.data.filter((entry) => entry.event.deviceId === deviceId).map((entry) => entry.event.kind);
        expect(kinds[0]).toBe('machineOffline');
        expect(history.events).toHaveLength(kinds.length);
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('the simulator fleet', () => {
  it('names its machines in order', () => {
    const fleet = new Fleet({
      serverUrl: 'http://127.0.0.1:1',
      ca: { keyType: 'EC', certificatePem: '', privateKeyPem: '' },
      count: 3,
      namePrefix: 'Line A',
    });
    expect(fleet.machines.map((machine) => machine.options.identity)).toEqual([
      { name: 'Line A 1', id: 'line-a-1', serialNumber: 'LINE-A-0001' },
      { name: 'Line A 2', id: 'line-a-2', serialNumber: 'LINE-A-0002' },
      { name: 'Line A 3', id: 'line-a-3', serialNumber: 'LINE-A-0003' },
    ]);
  });
});
