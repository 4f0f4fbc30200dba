import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TDsiEntry, TOrder, TOutboxMessage, TPage } from '@manifold/contract';
import { until } from '@manifold/machine-simulator';
import { describeCertificate, parseCertificateBundle } from '../src/crypto/certificates.js';
import { decryptContent, unwrapContentKey } from '../src/crypto/design-keys.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { verifyXmlSignature } from '../src/crypto/xml-signature.js';
import { createScratchDatabase } from './helpers/database-servers.js';
import { policyFor, stpEnvelope, type LicensingWorld } from './helpers/licensing-fixtures.js';
import { multipartForm } from './helpers/multipart.js';
import { testMachine } from './helpers/packages-fixtures.js';
import { joinNetwork, registerAndApprove, startPeer, type PeerProcess } from './helpers/peer-network.js';
import { testRoot } from './helpers/test-pki.js';

const FAST = { JOBS_POLL_MS: '100', OUTBOX_RETRY_BASE_MS: '300', OUTBOX_RETRY_MAX_MS: '1500' };

/**
 * Two real server processes (the upstream on PostgreSQL when it answers, the downstream on
 * SQLite), each delivering with its own job runner: `das/transfer` hands a design revision
 * downstream, an authorization becomes an order there, and a machine of the downstream instance
 * pulls the design and decrypts it with the content key wrapped for it.
 */
describe('a design handed down between real server processes', () => {
  const databases = inject('databases');
  let root: DevelopmentCa;
  let upstream: PeerProcess;
  let downstream: PeerProcess;
  let downstreamSigning: string;
  const cleanups: (() => Promise<void>)[] = [];
  let manageId: string;
  let world: LicensingWorld;
  const secret = randomBytes(40_000);
  let fileId: string;

  beforeAll(async () => {
    root = await testRoot('Design Chain Root');
    const upDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-design-up-'));
    cleanups.push(() => fs.rm(upDir, { recursive: true, force: true }));
    let databaseUrl = `sqlite:${path.join(upDir, 'manifold.db')}`;
    if (databases.includes('postgres')) {
      const scratch = await createScratchDatabase('postgres');
      cleanups.push(scratch.drop);
      databaseUrl = scratch.url;
    }
    [upstream, downstream] = await Promise.all([
      startPeer('Design Upstream', { ...FAST, DATA_DIR: upDir, DATABASE_URL: databaseUrl }),
      startPeer('Design Downstream', FAST),
    ]);
    const [signing, theirSigning] = await Promise.all([joinNetwork(upstream.call, root), joinNetwork(downstream.call, root)]);
    downstreamSigning = theirSigning;
    ({ askerId: manageId } = await registerAndApprove(upstream, downstream, 'downStreamManage'));

    const info = await upstream.call('POST', '/ui/package/info', {
      body: { designName: 'Handed Down Bracket', description: 'A part', companyName: 'Acme' },
    });
    const dsiId = (info.json() as { dsiId: string }).dsiId;
    const file = multipartForm({ dsiId, isPublic: 'false', file: { filename: 'part.3mf', content: secret } });
    const uploaded = await upstream.call('POST', '/ui/package/files/upload', file);
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    fileId = (uploaded.json() as { fileId: string }).fileId;
    const built = await upstream.call('POST', '/ui/package/build', { body: { dsiId } });
    expect(built.statusCode, built.body).toBe(200);
    world = { revision: built.json() as TDsiEntry, licenseeSerial: describeCertificate(signing).serialNumber } as LicensingWorld;
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

  it('das/transfer → revision downstream → delegated order → a downstream machine downloads and decrypts the design', async () => {
    const { messageId } = (await ok(upstream, 'POST', '/ui/das/transfer', { dsiId: world.revision.dsiId, manageId })) as {
      messageId: string;
    };
    await until('the design message delivered', async () => {
      const messages = (await ok(upstream, 'GET', '/ui/admin/outbox?numberOfItems=100')) as unknown as TPage<TOutboxMessage>;
      return messages.data.find((message) => message.messageId === messageId && message.state === 'delivered');
    });
    const held = (await ok(downstream, 'GET', `/ui/das/list?dsiId=${world.revision.dsiId}`)) as unknown as TPage<TDsiEntry>;
    expect(held.data.map((entry) => [entry.revisionId, entry.digestValue])).toEqual([
      [world.revision.revisionId, world.revision.digestValue],
    ]);

    const { orderId } = (await ok(upstream, 'POST', '/ui/order/add', {
      authorizationAuthorizedPolicyList: policyFor(world, { quantity: 5 }),
    })) as { orderId: string };
    const { authorizationId } = (await ok(upstream, 'POST', '/ui/authorization/authorize', {
      orderId,
      manageId,
      quantity: 2,
    })) as {
      authorizationId: string;
    };
    await ok(upstream, 'POST', '/ui/authorization/send', { orderId, authorizationId });
    const order = await until('the order downstream', async () =>
      ((await ok(downstream, 'GET', '/ui/order/list?numberOfItems=100')) as unknown as TPage<TOrder>).data.find(
        (entry) => entry.orderIdentity.authorizationId === authorizationId,
      ),
    );

    const machine = await testMachine(root);
    const { deviceId } = (await ok(downstream, 'POST', '/apl/registration/add', await machine.request())) as { deviceId: string };
    await ok(downstream, 'POST', '/ui/device/approve', { id: deviceId, approve: true });
    const granted = (await ok(downstream, 'POST', '/ui/authorization/authorize', {
      orderId: order.orderIdentity.orderId,
      deviceId,
      quantity: 1,
    })) as { authorizationId: string };
    await ok(downstream, 'POST', '/ui/authorization/send', {
      orderId: order.orderIdentity.orderId,
      authorizationId: granted.authorizationId,
    });

    const pull = async (pathName: string, body: Record<string, unknown>) => {
      const response = await fetch(`${downstream.url}${pathName}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(await stpEnvelope(machine, deviceId, pathName, body)),
      });
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    const xml = (await pull('/stp/authorization/download', { authorizationId: granted.authorizationId })).toString('utf8');
    const { element } = verifyXmlSignature(xml, parseCertificateBundle(downstreamSigning)[0]!.pem);
    const files = element.getElementsByTagName('File');
    let wrapped: string | undefined;
    for (let i = 0; i < files.length; i += 1) {
      if (files.item(i)!.getAttribute('fileId') === fileId) {
        wrapped = files.item(i)!.getElementsByTagName('WrappedKey').item(0)!.textContent!;
      }
    }
    const contentKey = await unwrapContentKey(wrapped!, machine.encryptionKeyPem);
    const encrypted = await pull('/stp/design/download', { authorizationId: granted.authorizationId, fileId });
    expect(encrypted.equals(secret)).toBe(false);
    expect(decryptContent(encrypted, contentKey).equals(secret)).toBe(true);
  });
});
