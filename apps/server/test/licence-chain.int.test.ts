import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type {
  TCanonicalTraceEvent,
  TDsiEntry,
  TOrder,
  TOrderDetail,
  TOutboxMessage,
  TPage,
  TQueuedEvent,
  TTraceEventEntry,
} from '@manifold/contract';
import { until as untilWithin } from '@manifold/machine-simulator';

/** The network settles slowly on a loaded machine (three processes, one restarted): two minutes per wait. */
const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) => untilWithin(what, probe, 120_000);
import { describeCertificate } from '../src/crypto/certificates.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { policyFor, type LicensingWorld } from './helpers/licensing-fixtures.js';
import { multipartForm } from './helpers/multipart.js';
import { testMachine } from './helpers/packages-fixtures.js';
import { FAST_DELIVERY, joinNetwork, okCall, registerAndApprove, startPeer, type PeerProcess } from './helpers/peer-network.js';
import { freePort } from './helpers/server-process.js';
import { testRoot } from './helpers/test-pki.js';
import { MachineChain } from './helpers/trace-fixtures.js';

/**
 * Three real server processes, each with its own database: the upstream Manage on PostgreSQL,
 * the downstream Manage on MariaDB (each SQLite when that server does not answer; CI has both) and
 * the Trace instance on SQLite. They exchange certificates and register through the admin calls
 * (each approved by the side that did not ask); both Manage instances report to the Trace. An
 * upstream authorization becomes an order downstream, a machine is authorized there and its
 * events reach the Trace; the downstream is killed (SIGKILL) while messages wait on both sides
 * and restarted; everything arrives exactly once and the revocation travels down.
 */
describe('the licence chain between real server processes', () => {
  const databases = inject('databases');
  let root: DevelopmentCa;
  let upstream: PeerProcess;
  let downstream: PeerProcess;
  let trace: PeerProcess;
  let downstreamEnv: Record<string, string>;
  const cleanups: (() => Promise<void>)[] = [];
  let manageId: string;
  let world: LicensingWorld;

  async function databaseFor(kind: 'postgres' | 'mysql', dir: string): Promise<string> {
    if (!databases.includes(kind)) return `sqlite:${path.join(dir, 'manifold.db')}`;
    const scratch = await createScratchDatabase(kind);
    cleanups.push(scratch.drop);
    return scratch.url;
  }

  beforeAll(async () => {
    root = await testRoot('Licence Chain Root');
    const upDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-up-'));
    const downDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-down-'));
    cleanups.push(
      () => fs.rm(upDir, { recursive: true, force: true }),
      () => fs.rm(downDir, { recursive: true, force: true }),
    );
    downstreamEnv = {
      ...FAST_DELIVERY,
      DATA_DIR: downDir,
      PORT: String(await freePort()),
      DATABASE_URL: await databaseFor('mysql', downDir),
    };
    const started = await Promise.allSettled([
      startPeer('Upstream Site', { ...FAST_DELIVERY, DATA_DIR: upDir, DATABASE_URL: await databaseFor('postgres', upDir) }),
      startPeer('Downstream Site', downstreamEnv),
      startPeer('Trace Site', FAST_DELIVERY),
    ]);
    const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      // stop those that did start: afterAll knows none of them
      await Promise.all(running.map((peer) => peer.stop()));
      throw failed.reason;
    }
    [upstream, downstream, trace] = running as [PeerProcess, PeerProcess, PeerProcess];
    const [signing] = await Promise.all([
      joinNetwork(upstream.call, root),
      joinNetwork(downstream.call, root),
      joinNetwork(trace.call, root),
    ]);
    ({ askerId: manageId } = await registerAndApprove(upstream, downstream, 'downStreamManage'));
    await registerAndApprove(upstream, trace, 'trace');
    await registerAndApprove(downstream, trace, 'trace');

    // a design built upstream, and the upstream as licensee of its orders
    const info = await upstream.call('POST', '/ui/package/info', {
      body: { designName: 'Chain Bracket', description: 'A part', companyName: 'Acme' },
    });
    const dsiId = (info.json() as { dsiId: string }).dsiId;
    const file = multipartForm({ dsiId, isPublic: 'false', file: { filename: 'part.3mf', content: Buffer.alloc(2048, 7) } });
    expect((await upstream.call('POST', '/ui/package/files/upload', file)).statusCode).toBe(200);
    const built = await upstream.call('POST', '/ui/package/build', { body: { dsiId } });
    expect(built.statusCode, built.body).toBe(200);
    world = {
      revision: built.json() as TDsiEntry,
      licenseeSerial: describeCertificate(signing).serialNumber,
    } as LicensingWorld;
  }, 240_000);

  afterAll(async () => {
    await Promise.all([upstream?.stop(), downstream?.stop(), trace?.stop()]);
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  });

  const ok = okCall;
  const downstreamOrders = async () => (await ok<TPage<TOrder>>(downstream, 'GET', '/ui/order/list?numberOfItems=100')).data;
  const orderOf = (authorizationId: string) => async () =>
    (await downstreamOrders()).find((order) => order.orderIdentity.authorizationId === authorizationId);
  const outbox = async () => (await ok<TPage<TOutboxMessage>>(upstream, 'GET', '/ui/admin/outbox?numberOfItems=100')).data;
  /** The Trace instance's copies of an event (one, once forwarded). */
  const atTrace = async (eventId: string) =>
    (await ok<TPage<TTraceEventEntry>>(trace, 'GET', '/ui/event/list?numberOfItems=500')).data.filter(
      (entry) => entry.eventId === eventId,
    );
  /** A machine registered with `peer` and approved there, with its event chain. */
  const machineOf = async (peer: PeerProcess) => {
    const machine = await testMachine(root);
    const { deviceId } = await ok<{ deviceId: string }>(peer, 'POST', '/apl/registration/add', await machine.request());
    await ok(peer, 'POST', '/ui/device/approve', { id: deviceId, approve: true });
    return new MachineChain({ machine, deviceId });
  };
  const report = async (peer: PeerProcess, chain: MachineChain, event: TCanonicalTraceEvent) => {
    const reported = await peer.call('POST', '/apl/event', {
      body: chain.xml(event),
      headers: { 'content-type': 'application/xml' },
    });
    expect(reported.statusCode, reported.body).toBe(200);
  };

  it('upstream authorization → order downstream → machine authorized there, its events at the Trace; kill -9 while messages wait; revoked downstream, each message applied once', async () => {
    const { orderId } = await ok<{ orderId: string }>(upstream, 'POST', '/ui/order/add', {
      authorizationAuthorizedPolicyList: policyFor(world, { quantity: 20 }),
    });
    const authorize = async (quantity: number) =>
      (await ok<{ authorizationId: string }>(upstream, 'POST', '/ui/authorization/authorize', { orderId, manageId, quantity }))
        .authorizationId;
    const first = await authorize(5);
    await ok(upstream, 'POST', '/ui/authorization/send', { orderId, authorizationId: first });
    const order = await until('the order downstream', orderOf(first));
    expect(order).toMatchObject({ quantity: 5, source: 'upstream', revoked: false });

    // a machine of the downstream instance is authorized from it and reports; its events reach the Trace
    const machine = await machineOf(downstream);
    const { deviceId } = machine.world;
    const { authorizationId: local } = await ok<{ authorizationId: string }>(downstream, 'POST', '/ui/authorization/authorize', {
      orderId: order.orderIdentity.orderId,
      deviceId,
      quantity: 2,
    });
    const idle = machine.next('machineIdle');
    await report(downstream, machine, idle);
    const forwarded = await until('the downstream machine event at the Trace', async () => (await atTrace(idle.eventId))[0]);
    expect(forwarded).toMatchObject({ source: 'peer', event: { kind: 'machineIdle', deviceId } });

    // one more event is stored downstream; the downstream dies at once, whether or not it was forwarded yet
    const lastWords = machine.next('machineIdle');
    await report(downstream, machine, lastWords);
    downstream.server.child.kill('SIGKILL');
    await downstream.stop(); // already dead: collects the exit and removes the helper's scratch directory
    // three more authorizations and a revocation wait in the upstream's outbox
    const more = [await authorize(1), await authorize(1), await authorize(1)];
    await ok(upstream, 'POST', '/ui/authorization/send', { orderId, sendAll: true });
    await ok(upstream, 'POST', '/ui/authorization/revoke', { orderId, authorizationId: first });
    const failing = await until('failed attempts', async () => {
      const rows = (await outbox()).filter((row) => row.state === 'pending' && row.attempts > 0 && row.kind !== 'event');
      return rows.length === 4 ? rows : undefined;
    });
    for (const row of failing) expect(row.lastError).toContain('registrationExchangeCommunicationFailed');

    downstream = await startPeer('Downstream Site', downstreamEnv);
    const messages = await until('every message delivered', async () => {
      const rows = (await outbox()).filter((row) => row.kind !== 'event');
      return rows.length === 5 && rows.every((row) => row.state === 'delivered') ? rows : undefined;
    });
    expect(messages.map((row) => row.kind).sort()).toEqual([
      'authorization',
      'authorization',
      'authorization',
      'authorization',
      'revocation',
    ]);

    const orders = await downstreamOrders();
    for (const authorizationId of [first, ...more]) {
      expect(orders.filter((entry) => entry.orderIdentity.authorizationId === authorizationId)).toHaveLength(1);
    }
    const revoked = orders.find((entry) => entry.orderIdentity.authorizationId === first)!;
    expect(revoked.revoked).toBe(true);
    const detail = await ok<TOrderDetail>(downstream, 'GET', `/ui/order/fetch?orderId=${revoked.orderIdentity.orderId}`);
    expect(detail.authorizations.data.find((entry) => entry.id === local)?.state).toBe('revoked');
    const kinds = detail.history.map((entry) => entry.eventType);
    expect(kinds.filter((kind) => kind === 'licenceReceived')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'orderRevoked')).toHaveLength(1);
    expect(orders.filter((entry) => entry.source === 'upstream' && !entry.revoked).map((entry) => entry.quantity)).toEqual([
      1, 1, 1,
    ]);

    // the event stored before the kill reaches the Trace after the restart; each event is there once
    await until('the last event at the Trace', async () => ((await atTrace(lastWords.eventId)).length > 0 ? true : undefined));
    await until('the downstream queue emptied', async () =>
      (await ok<TPage<TQueuedEvent>>(downstream, 'GET', '/ui/queue/list')).data.length === 0 ? true : undefined,
    );
    expect((await atTrace(idle.eventId)).length).toBe(1);
    expect((await atTrace(lastWords.eventId)).length).toBe(1);
  }, 240_000);

  it('an event reported upstream reaches the Trace and leaves the queue', async () => {
    const machine = await machineOf(upstream);
    const event = machine.next('machineIdle');
    await report(upstream, machine, event);

    const stored = await until('the event at the Trace instance', async () => (await atTrace(event.eventId))[0]);
    expect(stored).toMatchObject({ source: 'peer', event: { kind: 'machineIdle', deviceId: machine.world.deviceId } });
    await until('the queue emptied', async () => {
      const queue = await ok<TPage<TQueuedEvent>>(upstream, 'GET', '/ui/queue/list');
      return queue.data.some((entry) => entry.eventId === event.eventId) ? undefined : true;
    });
    expect(await atTrace(event.eventId)).toHaveLength(1);
  }, 120_000);
});
