import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type {
  TDsiEntry,
  TManageInstance,
  TOrder,
  TOrderDetail,
  TOutboxMessage,
  TPage,
  TQueuedEvent,
  TTraceEventEntry,
  TTraceInstance,
} from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { signXml } from '../src/crypto/xml-signature.js';
import { canonicalEvent, traceEventXml } from '../src/modules/events/trace-event-format.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { policyFor, type LicensingWorld } from './helpers/licensing-fixtures.js';
import { multipartForm } from './helpers/multipart.js';
import { testMachine } from './helpers/packages-fixtures.js';
import { joinNetwork, startPeer, type PeerProcess } from './helpers/peer-network.js';
import { freePort } from './helpers/server-process.js';
import { testRoot } from './helpers/test-pki.js';

/** Fast retries and polls, so a peer that comes back is reached within a second or two. */
const FAST = { JOBS_POLL_MS: '100', OUTBOX_RETRY_BASE_MS: '300', OUTBOX_RETRY_MAX_MS: '1500' };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * Real server processes, each with its own database (PostgreSQL and MariaDB when they answer,
 * else SQLite): an upstream Manage hands an authorization to a downstream Manage, where it becomes
 * an order a machine is authorized from; the downstream is killed (SIGKILL) while messages wait
 * and restarted; everything arrives exactly once and the revocation travels down. A third process
 * (SQLite) is the upstream's Trace instance: an event reported upstream is forwarded to it.
 */
describe('the licence chain between real server processes', () => {
  const databases = inject('databases');
  let root: DevelopmentCa;
  let upstream: PeerProcess;
  let downstream: PeerProcess;
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
      ...FAST,
      DATA_DIR: downDir,
      PORT: String(await freePort()),
      DATABASE_URL: await databaseFor('mysql', downDir),
    };
    [upstream, downstream] = await Promise.all([
      startPeer('Upstream Site', { ...FAST, DATA_DIR: upDir, DATABASE_URL: await databaseFor('postgres', upDir) }),
      startPeer('Downstream Site', downstreamEnv),
    ]);
    const [signing] = await Promise.all([joinNetwork(upstream.call, root), joinNetwork(downstream.call, root)]);
    const added = await upstream.call('POST', '/ui/manage/add', { body: { manageUrl: downstream.url } });
    expect(added.statusCode, added.body).toBe(200);
    const ours = added.json() as TManageInstance;
    manageId = ours.manageId;
    const theirs = (
      (await downstream.call('GET', '/ui/manage/list?registrationType=upStreamManage')).json() as TPage<TManageInstance>
    ).data[0]!;
    expect(theirs.registrationNonce).toBe(ours.registrationNonce);
    const approved = await downstream.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } });
    expect(approved.statusCode, approved.body).toBe(200);

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
  }, 180_000);

  afterAll(async () => {
    await Promise.all([upstream?.stop(), downstream?.stop()]);
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  });

  const ok = async (peer: PeerProcess, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const answer = await peer.call(method, url, body === undefined ? {} : { body });
    expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
    return answer.json() as Record<string, unknown>;
  };
  const downstreamOrders = async () =>
    ((await ok(downstream, 'GET', '/ui/order/list?numberOfItems=100')) as unknown as TPage<TOrder>).data;
  const orderOf = (authorizationId: string) => async () =>
    (await downstreamOrders()).find((order) => order.orderIdentity.authorizationId === authorizationId);
  const outbox = async () =>
    ((await ok(upstream, 'GET', '/ui/admin/outbox?numberOfItems=100')) as unknown as TPage<TOutboxMessage>).data;

  it('upstream authorization → order downstream → machine authorized there; kill -9 while messages wait; revoked downstream, each message applied once', async () => {
    const { orderId } = (await ok(upstream, 'POST', '/ui/order/add', {
      authorizationAuthorizedPolicyList: policyFor(world, { quantity: 20 }),
    })) as { orderId: string };
    const authorize = async (quantity: number) =>
      (
        (await ok(upstream, 'POST', '/ui/authorization/authorize', { orderId, manageId, quantity })) as {
          authorizationId: string;
        }
      ).authorizationId;
    const first = await authorize(5);
    await ok(upstream, 'POST', '/ui/authorization/send', { orderId, authorizationId: first });
    const order = await until('the order downstream', orderOf(first));
    expect(order).toMatchObject({ quantity: 5, source: 'upstream', revoked: false });

    // a machine of the downstream instance is authorized from it
    const machine = await testMachine(root);
    const { deviceId } = (await ok(downstream, 'POST', '/apl/registration/add', await machine.request())) as { deviceId: string };
    await ok(downstream, 'POST', '/ui/device/approve', { id: deviceId, approve: true });
    const { authorizationId: local } = (await ok(downstream, 'POST', '/ui/authorization/authorize', {
      orderId: order.orderIdentity.orderId,
      deviceId,
      quantity: 2,
    })) as { authorizationId: string };

    // the downstream dies; three more authorizations and a revocation wait in the outbox
    downstream.server.child.kill('SIGKILL');
    await downstream.stop(); // already dead: collects the exit and removes the helper's scratch directory
    const more = [await authorize(1), await authorize(1), await authorize(1)];
    await ok(upstream, 'POST', '/ui/authorization/send', { orderId, sendAll: true });
    await ok(upstream, 'POST', '/ui/authorization/revoke', { orderId, authorizationId: first });
    const failing = await until('failed attempts', async () => {
      const rows = (await outbox()).filter((row) => row.state === 'pending' && row.attempts > 0);
      return rows.length === 4 ? rows : undefined;
    });
    for (const row of failing) expect(row.lastError).toContain('registrationExchangeCommunicationFailed');

    downstream = await startPeer('Downstream Site', downstreamEnv);
    const messages = await until('every message delivered', async () => {
      const rows = await outbox();
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
    const detail = (await ok(
      downstream,
      'GET',
      `/ui/order/fetch?orderId=${revoked.orderIdentity.orderId}`,
    )) as unknown as TOrderDetail;
    expect(detail.authorizations.data.find((entry) => entry.id === local)?.state).toBe('revoked');
    const kinds = detail.history.map((entry) => entry.eventType);
    expect(kinds.filter((kind) => kind === 'licenceReceived')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'orderRevoked')).toHaveLength(1);
    expect(orders.filter((entry) => entry.source === 'upstream' && !entry.revoked).map((entry) => entry.quantity)).toEqual([
      1, 1, 1,
    ]);
  }, 180_000);

  it('a third process as Trace: an event reported upstream reaches it and leaves the queue', async () => {
    const trace = await startPeer('Trace Site', FAST);
    try {
      await joinNetwork(trace.call, root);
      const added = await upstream.call('POST', '/ui/trace/add', { body: { traceUrl: trace.url } });
      expect(added.statusCode, added.body).toBe(200);
      const asked = ((await ok(trace, 'GET', '/ui/trace/list')) as unknown as TPage<TTraceInstance>).data.find(
        (entry) => !entry.initiator,
      )!;
      await ok(trace, 'POST', '/ui/trace/approve', { id: asked.id, approve: true });

      const machine = await testMachine(root);
      const { deviceId } = (await ok(upstream, 'POST', '/apl/registration/add', await machine.request())) as { deviceId: string };
      await ok(upstream, 'POST', '/ui/device/approve', { id: deviceId, approve: true });
      const event = canonicalEvent(
        {
          eventId: randomUUID(),
          kind: 'machineIdle',
          occurredAt: new Date().toISOString(),
          authorizationId: null,
          jobId: null,
          quantity: null,
          previousHash: null,
          data: {},
        },
        deviceId,
      );
      const xml = signXml(traceEventXml(event), {
        privateKeyPem: machine.signingKeyPem,
        certificatePem: machine.apl.signingCertificate,
      });
      const reported = await upstream.call('POST', '/apl/event', { body: xml, headers: { 'content-type': 'application/xml' } });
      expect(reported.statusCode, reported.body).toBe(200);

      const stored = await until('the event at the Trace instance', async () =>
        ((await ok(trace, 'GET', '/ui/event/list?numberOfItems=100')) as unknown as TPage<TTraceEventEntry>).data.find(
          (entry) => entry.eventId === event.eventId,
        ),
      );
      expect(stored).toMatchObject({ source: 'peer', event: { kind: 'machineIdle', deviceId } });
      await until('the queue emptied', async () => {
        const queue = (await ok(upstream, 'GET', '/ui/queue/list')) as unknown as TPage<TQueuedEvent>;
        return queue.data.some((entry) => entry.eventId === event.eventId) ? undefined : true;
      });
    } finally {
      await trace.stop();
    }
  }, 120_000);
});
