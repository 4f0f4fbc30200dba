import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { TPage, TPart, TPartHistory } from '@manifold/contract';
import { addOrder, licensingWorld, type LicensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('part/history: a part\u2019s whole history', (ctx) => {
  let world: LicensingWorld;
  let orderId: string;
  let authorizationId: string;
  let licenceEvents: string[];
  let jobEvents: string[];
  let part: TPart;

  beforeAll(async () => {
    world = await licensingWorld(ctx());
    const chain = new MachineChain(world);
    orderId = await addOrder(ctx(), policyFor(world, { serialization: { type: 'Dec', prefix: 'P-', start: 1, end: 99 } }));
    authorizationId = await grantAuthorization(ctx(), orderId, world.deviceId, 3);
    const licence = [chain.next('licenceReceivedByMachine', { authorizationId })];
    const job = [
      chain.next('jobStarted', { authorizationId, jobId: 'j1', quantity: 1 }),
      chain.next('qualityCheckPassed', { authorizationId, jobId: 'j1', data: { height: '12.0' } }),
      chain.next('jobEnded', { authorizationId, jobId: 'j1' }),
    ];
    // another job of the same licence and the machine's own state: not this part's
    const other = [
      chain.next('jobStarted', { authorizationId, jobId: 'j2', quantity: 1 }),
      chain.next('jobFailed', { authorizationId, jobId: 'j2' }),
      chain.next('machineIdle'),
    ];
    for (const event of [...licence, ...job, ...other]) {
      const response = await chain.sendStp(ctx(), event);
      expect(response.statusCode, response.body).toBe(200);
    }
    licenceEvents = licence.map((event) => event.eventId);
    jobEvents = job.map((event) => event.eventId);
    const parts = await ctx().call('GET', '/ui/part/list?serialNumber=P-1', { token: await ctx().adminToken() });
    expect(parts.statusCode, parts.body).toBe(200);
    part = parts.json<TPage<TPart>>().data[0]!;
  });

  it('needs an ADMIN session; an unknown or malformed part is partNotPresent', async () => {
    const url = `/ui/part/history?partId=${part.id}`;
    expectToken(await ctx().call('GET', url), 401, 'invalidSessionToken');
    const { token } = await ctx().createUser();
    expectToken(await ctx().call('GET', url, { token }), 403, 'actionNotAllowed');
    const admin = await ctx().adminToken();
    expectToken(await ctx().call('GET', `/ui/part/history?partId=${randomUUID()}`, { token: admin }), 420, 'partNotPresent');
    expectToken(await ctx().call('GET', '/ui/part/history?partId=nope', { token: admin }), 420, 'partNotPresent');
    expectToken(await ctx().call('GET', '/ui/part/history', { token: admin }), 420, 'partNotPresent');
  });

  it('answers design revision, order, authorization, machine, job and the licence\u2019s events of that job', async () => {
    const response = await ctx().call('GET', `/ui/part/history?partId=${part.id}`, { token: await ctx().adminToken() });
    expect(response.statusCode, response.body).toBe(200);
    const history = response.json<TPartHistory>();
    expect(history.part).toMatchObject({ id: part.id, serialNumber: 'P-1', partQmsState: 'NO_QMS_STEP', traceEvents: jobEvents });
    expect(history.design).toMatchObject({
      dsiId: world.revision.dsiId,
      dsiVersion: world.revision.dsiVersion,
      designName: world.revision.designName,
      builtAt: expect.any(String),
    });
    expect(history.order).toMatchObject({ orderId, quantity: 10, revoked: false, breakagePolicy: 'Strict' });
    // 3 authorized, less the part j2 broke (Strict: it counts)
    expect(history.authorization).toMatchObject({ authorizationId, state: 'sent', quantity: 2, sentAt: expect.any(String) });
    expect(history.machine).toMatchObject({
      deviceId: world.deviceId,
      name: world.machine.apl.deviceIdentity.name,
      serialNumber: world.machine.apl.deviceIdentity.serialNumber,
    });
    expect(history.build).toMatchObject({ buildId: part.buildId, jobId: 'j1', state: 'ended', quantity: 1 });
    expect(history.events.map((event) => event.eventId)).toEqual([...licenceEvents, ...jobEvents]);
    expect(history.events.map((event) => event.event.kind)).toEqual([
      'licenceReceivedByMachine',
      'jobStarted',
      'qualityCheckPassed',
      'jobEnded',
    ]);
    expect(history.events[2]).toMatchObject({ status: 'verified', event: { data: { height: '12.0' } } });
    expect(history.eventsTruncated).toBe(false);
  });
});
