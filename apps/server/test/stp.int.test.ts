import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { TPage } from '@manifold/contract';
import { pathOf, runTool, withTempFiles } from '../src/crypto/crypto-test-helpers.js';
import { decryptContent, unwrapContentKey } from '../src/crypto/design-keys.js';
import { verifyXmlSignature } from '../src/crypto/xml-signature.js';
import {
  addOrder,
  authorize,
  policyFor,
  registerApprovedMachine,
  stpCall,
  stpEnvelope,
  suiteLicensingWorld,
} from './helpers/licensing-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('machine pulls (STP)', (ctx) => {
  // The world's machine is the first test's; the others register machines of their own, so what
  // each asserts of "its" machine's lists is its own doing, also when it runs alone.
  const world = suiteLicensingWorld(ctx);

  const send = async (orderId: string, authorizationId: string) => {
    const response = await ctx().call('POST', '/ui/authorization/send', {
      token: await ctx().adminToken(),
      body: { orderId, authorizationId },
    });
    expect(response.statusCode, response.body).toBe(200);
  };

  /** Another approved machine, with an order of its own. */
  const ownMachine = async () => {
    const { machine, deviceId } = await registerApprovedMachine(ctx(), world.root);
    return { machine, deviceId, orderId: await addOrder(ctx(), policyFor(world)) };
  };

  it('a registered, approved machine receives its authorization, verifies it and decrypts the design', async () => {
    const orderId = await addOrder(
      ctx(),
      policyFor(world, { serialization: { type: 'Hex', prefix: 'M-', start: 4096, end: 8191 } }),
    );
    const authorizationId = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 4 });

    // not offered before it is sent
    const before = await stpCall(ctx(), world, '/stp/authorization/list', {});
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json<TPage<unknown>>().totalNumOfItems).toBe(0);
    expectToken(
      await stpCall(ctx(), world, '/stp/authorization/download', { authorizationId }),
      420,
      'authorizationNotAvailable',
    );

    await send(orderId, authorizationId);
    const orders = await stpCall(ctx(), world, '/stp/order/list', { numberOfItems: 5 });
    expect(orders.statusCode, orders.body).toBe(200);
    expect(orders.json<TPage<{ orderId: string; digestValue: string }>>().data).toEqual([
      expect.objectContaining({ orderId, digestValue: world.revision.digestValue, dsiId: world.revision.dsiId }),
    ]);
    const list = await stpCall(ctx(), world, '/stp/authorization/list', {});
    expect(list.json<TPage<unknown>>().data).toEqual([
      expect.objectContaining({ authorizationId, orderId, state: 'sent', quantity: 4 }),
    ]);

    const download = await stpCall(ctx(), world, '/stp/authorization/download', { authorizationId });
    expect(download.statusCode, download.body).toBe(200);
    const xml = download.body;
    // the machine trusts the network root: xmlsec1 follows the KeyInfo certificate to it
    const checked = withTempFiles({ 'root.pem': world.root.certificatePem, 'a.xml': xml }, (paths) =>
      runTool('xmlsec1', ['--verify', '--trusted-pem', pathOf(paths, 'root.pem'), pathOf(paths, 'a.xml')]),
    );
    expect(checked.status, checked.stderr).toBe(0);
    const { element } = verifyXmlSignature(xml, (await ctx().app.services.credentials.signingIdentity()).certificatePem);
    expect(element.getElementsByTagName('SerialNumbers').item(0)?.getAttribute('first')).toBe('M-1000');
    expect(element.getElementsByTagName('SerialNumbers').item(0)?.getAttribute('last')).toBe('M-1003');
    const files = element.getElementsByTagName('File');
    let privateKey: Buffer | undefined;
    for (let i = 0; i < files.length; i += 1) {
      const file = files.item(i)!;
      if (file.getAttribute('fileId') === world.privateFile.fileId) {
        privateKey = await unwrapContentKey(
          file.getElementsByTagName('WrappedKey').item(0)!.textContent!,
          world.machine.encryptionKeyPem,
        );
      }
    }
    expect(privateKey).toBeDefined();

    const encrypted = await stpCall(ctx(), world, '/stp/design/download', { authorizationId, fileId: world.privateFile.fileId });
    expect(encrypted.statusCode, encrypted.body).toBe(200);
    expect(encrypted.headers['x-manifold-encrypted']).toBe('true');
    expect(encrypted.rawPayload.equals(world.privateFile.bytes)).toBe(false);
    const plain = decryptContent(encrypted.rawPayload, privateKey!);
    expect(plain.equals(world.privateFile.bytes)).toBe(true);
    expect(createHash('sha256').update(plain).digest('hex')).toBe(encrypted.headers['x-manifold-sha256']);
    const open = await stpCall(ctx(), world, '/stp/design/download', { authorizationId, fileId: world.publicFile.fileId });
    expect(open.headers['x-manifold-encrypted']).toBe('false');
    expect(open.rawPayload.equals(world.publicFile.bytes)).toBe(true);
    expectToken(
      await stpCall(ctx(), world, '/stp/design/download', { authorizationId, fileId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'entityDoesNotExist',
    );

    const received = await stpCall(ctx(), world, '/stp/authorization/list', {});
    expect(received.json<TPage<{ state: string }>>().data[0]!.state).toBe('received');
    const history = (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token: await ctx().adminToken() })).json<{
      history: { eventType: string; actor: string }[];
    }>().history;
    expect(history.map((h) => h.eventType)).toEqual(
      expect.arrayContaining(['licenceSent', 'licenceReceivedByMachine', 'designPackageReceivedByMachine']),
    );
    expect(history.find((h) => h.eventType === 'licenceReceivedByMachine')!.actor).toBe(`device:${world.deviceId}`);

    const enforce = await ctx().call('GET', `/ui/enforce/order/list?deviceId=${world.deviceId}`, {
      token: await ctx().adminToken(),
    });
    expect(enforce.json<TPage<unknown>>().data).toEqual([
      expect.objectContaining({
        authorizationId,
        orderId,
        deviceId: world.deviceId,
        state: 'received',
        deviceName: world.machine.apl.deviceIdentity.name,
      }),
    ]);
  });

  it('issues one-time upload tokens stored only as their hash', async () => {
    const machine = await ownMachine();
    const authorizationId = await authorize(ctx(), { orderId: machine.orderId, deviceId: machine.deviceId, quantity: 1 });
    await send(machine.orderId, authorizationId);
    const response = await stpCall(ctx(), machine, '/stp/upload/token', { authorizationId, purpose: 'dtl' });
    expect(response.statusCode, response.body).toBe(200);
    const { token, expiresAt } = response.json<{ token: string; expiresAt: string }>();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const rows = await ctx()
      .app.services.database.db.selectFrom('upload_tokens')
      .selectAll()
      .where('device_id', '=', machine.deviceId)
      .execute();
    expect(rows.map((row) => row.token_hash)).toEqual([createHash('sha256').update(token).digest('hex')]);
    expect(JSON.stringify(rows)).not.toContain(token);
    const other = '00000000-0000-4000-8000-000000000000';
    expectToken(await stpCall(ctx(), machine, '/stp/upload/token', { authorizationId: other }), 420, 'authorizationNotAvailable');
    expect((await ctx().call('GET', '/ui/dtl/list', { token: await ctx().adminToken() })).json<TPage<unknown>>()).toMatchObject({
      data: [],
      totalNumOfItems: 0,
    });
  });

  it('refuses replayed, stale, wrongly signed and malformed requests', async () => {
    const path = '/stp/authorization/list';
    const envelope = await stpEnvelope(world.machine, world.deviceId, path, {});
    expect((await ctx().call('POST', path, { body: envelope })).statusCode).toBe(200);
    expectToken(await ctx().call('POST', path, { body: envelope }), 401, 'stpNonceReplayed');
    // the same signed request at another endpoint does not verify (the path is signed)
    expectToken(
      await ctx().call('POST', '/stp/order/list', { body: { ...envelope, nonce: randomBytes(16).toString('base64url') } }),
      401,
      'stpSignatureInvalid',
    );
    expectToken(
      await stpCall(ctx(), world, path, {}, { timestamp: new Date(Date.now() - 6 * 60_000).toISOString() }),
      401,
      'stpTimestampOutOfWindow',
    );
    expectToken(
      await stpCall(ctx(), world, path, {}, { timestamp: new Date(Date.now() + 6 * 60_000).toISOString() }),
      401,
      'stpTimestampOutOfWindow',
    );
    expectToken(
      await stpCall(ctx(), world, path, {}, { signingKeyPem: world.machine.encryptionKeyPem }),
      401,
      'stpSignatureInvalid',
    );
    expectToken(
      await stpCall(ctx(), world, path, {}, { deviceId: '00000000-0000-4000-8000-000000000000' }),
      401,
      'stpSignatureInvalid',
    );
    const tampered = { ...(await stpEnvelope(world.machine, world.deviceId, path, { pageNum: 1 })), body: { pageNum: 2 } };
    expectToken(await ctx().call('POST', path, { body: tampered }), 401, 'stpSignatureInvalid');
    expectToken(await stpCall(ctx(), world, path, { pageNum: 'x' }), 400, 'malformedRequest');
    expect((await ctx().call('POST', path, { body: { deviceId: world.deviceId } })).statusCode).toBe(400);
  });

  it('gives a revoked or expired authorization, and a disabled machine, nothing', async () => {
    const token = await ctx().adminToken();
    const machine = await ownMachine();
    const { orderId, deviceId } = machine;
    const authorizationId = await authorize(ctx(), { orderId, deviceId, quantity: 4 });
    await send(orderId, authorizationId);
    expect((await stpCall(ctx(), machine, '/stp/authorization/download', { authorizationId })).statusCode).toBe(200);
    const expiring = await authorize(ctx(), { orderId, deviceId, quantity: 1 });
    await send(orderId, expiring);
    await ctx()
      .app.services.database.db.updateTable('authorizations')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expiring)
      .execute();
    expectToken(
      await stpCall(ctx(), machine, '/stp/authorization/download', { authorizationId: expiring }),
      420,
      'authorizationNotAvailable',
    );

    const revoked = await ctx().call('POST', '/ui/authorization/revoke', { token, body: { orderId, authorizationId } });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expectToken(
      await stpCall(ctx(), machine, '/stp/authorization/download', { authorizationId }),
      420,
      'authorizationNotAvailable',
    );
    expectToken(
      await stpCall(ctx(), machine, '/stp/design/download', { authorizationId, fileId: world.privateFile.fileId }),
      420,
      'authorizationNotAvailable',
    );
    const list = (await stpCall(ctx(), machine, '/stp/authorization/list', {})).json<
      TPage<{ authorizationId: string; state: string; quantity: number }>
    >();
    expect(list.data).toEqual([expect.objectContaining({ authorizationId, state: 'revoked', quantity: 0 })]);
    expect((await stpCall(ctx(), machine, '/stp/order/list', {})).json<TPage<unknown>>().totalNumOfItems).toBe(0);

    const live = await authorize(ctx(), { orderId, deviceId, quantity: 1 });
    await send(orderId, live);
    expect((await ctx().call('POST', '/ui/device/disable', { token, body: { deviceId } })).statusCode).toBe(200);
    expectToken(await stpCall(ctx(), machine, '/stp/authorization/list', {}), 420, 'deviceNotApproved');
    expectToken(
      await stpCall(ctx(), machine, '/stp/authorization/download', { authorizationId: live }),
      420,
      'deviceNotApproved',
    );
  });
});
