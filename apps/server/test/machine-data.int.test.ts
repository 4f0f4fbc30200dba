import { createHash, randomUUID } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { beforeAll, expect, it } from 'vitest';
import type { TAuditListEntry, TDtl, TPage } from '@manifold/contract';
import { addOrder, licensingWorld, type LicensingWorld, policyFor, stpCall } from './helpers/licensing-fixtures.js';
import { uploadForm } from './helpers/packages-fixtures.js';
import { grantAuthorization } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

const sha256 = (content: string) => createHash('sha256').update(content).digest('hex');

describeEachDatabase('machine data: /mpf/dtl, storage/dtl/upload, dtl/list', (ctx) => {
  let world: LicensingWorld;
  let orderId: string;
  let authorizationId: string;

  beforeAll(async () => {
    world = await licensingWorld(ctx());
    orderId = await addOrder(ctx(), policyFor(world));
    authorizationId = await grantAuthorization(ctx(), orderId, world.deviceId, 2);
  });

  const uploadToken = async (body: Record<string, unknown>) => {
    const response = await stpCall(ctx(), world, '/stp/upload/token', body);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ token: string }>().token;
  };
  const dtls = async (query = '') => {
    const response = await ctx().call('GET', `/ui/dtl/list${query}`, { token: await ctx().adminToken() });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TPage<TDtl>>();
  };
  const stored = async (dtlId: string) => {
    const row = await ctx()
      .app.services.database.db.selectFrom('dtls')
      .selectAll()
      .where('id', '=', dtlId)
      .executeTakeFirstOrThrow();
    return text(await ctx().app.services.storage.get(row.storage_key));
  };

  it('a machine uploads with its token once: stored, digested, listed and audited', async () => {
    const token = await uploadToken({ authorizationId, purpose: 'dtl' });
    const content = 'layer,temp\n1,210\n2,211\n';
    const response = await uploadForm(ctx(), '/mpf/dtl', undefined, {
      token,
      file: { filename: '../build log.csv', content, contentType: 'text/csv' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const dtl = response.json<TDtl>();
    expect(dtl).toMatchObject({
      deviceId: world.deviceId,
      authorizationId,
      orderId,
      dsiId: world.revision.dsiId,
      size: content.length,
      sha256: sha256(content),
    });
    expect(dtl.fileName).not.toContain('/');
    expect(await stored(dtl.dtlId)).toBe(content);
    expect((await dtls(`?orderId=${orderId}`)).data.map((entry) => entry.dtlId)).toContain(dtl.dtlId);
    const audit = await ctx().call('GET', `/ui/audit/list?kind=machineDataReceived&subject=${orderId}`, {
      token: await ctx().adminToken(),
    });
    expect(audit.json<TPage<TAuditListEntry>>().data[0]).toMatchObject({
      actor: `device:${world.deviceId}`,
      text: 'Machine data received',
      details: { dtlId: dtl.dtlId, sha256: sha256(content) },
    });

    // the token is spent
    const again = await uploadForm(ctx(), '/mpf/dtl', undefined, { token, file: { filename: 'x.csv', content: 'x' } });
    expectToken(again, 401, 'uploadTokenInvalid', 'token');
  });

  it('refuses unknown tokens, tokens for events, the file before the token, and no file', async () => {
    const before = (await dtls()).totalNumOfItems;
    const file = { filename: 'x.csv', content: 'x' };
    expectToken(await uploadForm(ctx(), '/mpf/dtl', undefined, { token: 'nope', file }), 401, 'uploadTokenInvalid', 'token');
    const eventToken = await uploadToken({ purpose: 'event' });
    expectToken(await uploadForm(ctx(), '/mpf/dtl', undefined, { token: eventToken, file }), 401, 'uploadTokenInvalid', 'token');
    const token = await uploadToken({ purpose: 'dtl' });
    expectToken(await uploadForm(ctx(), '/mpf/dtl', undefined, { file, token }), 420, 'machineDataFieldsFirst', 'file');
    expectToken(await uploadForm(ctx(), '/mpf/dtl', undefined, { token }), 420, 'uploadFileMissing', 'file');
    expectToken(await ctx().call('POST', '/mpf/dtl', { body: { token } }), 400, 'malformedRequest');
    expect((await dtls()).totalNumOfItems).toBe(before);
    // the token was not spent by the refusals: a machine-level upload without a licence still works
    const response = await uploadForm(ctx(), '/mpf/dtl', undefined, { token, file });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<TDtl>()).toMatchObject({ deviceId: world.deviceId, authorizationId: null, orderId: null });
  });

  it('the console uploads a machine\u2019s file: sessions, roles, machine and authorization checked', async () => {
    const file = { filename: 'scan.txt', content: 'scan data', contentType: 'text/plain' };
    const url = '/ui/storage/dtl/upload';
    expectToken(await uploadForm(ctx(), url, undefined, { deviceId: world.deviceId, file }), 401, 'invalidSessionToken');
    const admin = await ctx().adminToken();
    expectToken(await uploadForm(ctx(), url, admin, { deviceId: randomUUID(), file }), 420, 'deviceIdNotValid', 'deviceId');
    expectToken(await uploadForm(ctx(), url, admin, { deviceId: 'nope', file }), 420, 'deviceIdNotValid', 'deviceId');
    expectToken(
      await uploadForm(ctx(), url, admin, { deviceId: world.deviceId, authorizationId: randomUUID(), file }),
      420,
      'authorizationNotAvailable',
      'authorizationId',
    );
    expectToken(await uploadForm(ctx(), url, admin, { file, deviceId: world.deviceId }), 420, 'machineDataFieldsFirst');
    // a USER names an authorization of an order of their groups: this one is in none
    const user = await ctx().createUser();
    expectToken(
      await uploadForm(ctx(), url, user.token, { deviceId: world.deviceId, authorizationId, file }),
      420,
      'authorizationNotAvailable',
    );
    expectToken(await uploadForm(ctx(), url, user.token, { deviceId: world.deviceId, file }), 420, 'authorizationNotAvailable');

    const response = await uploadForm(ctx(), url, admin, { deviceId: world.deviceId, authorizationId, file });
    expect(response.statusCode, response.body).toBe(200);
    const dtl = response.json<TDtl>();
    expect(dtl).toMatchObject({ authorizationId, orderId, size: 9, sha256: sha256('scan data'), fileName: 'scan.txt' });
    expect(await stored(dtl.dtlId)).toBe('scan data');
    const audit = await ctx().call('GET', `/ui/audit/list?kind=machineDataStored&subject=${orderId}`, { token: admin });
    expect(audit.json<TPage<TAuditListEntry>>().data[0]).toMatchObject({
      text: 'Machine data stored',
      details: { dtlId: dtl.dtlId, deviceId: world.deviceId },
    });
  });
});
