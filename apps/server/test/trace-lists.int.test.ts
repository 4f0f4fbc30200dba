import { beforeAll, describe, expect, it } from 'vitest';
import {
  auditEventText,
  auditEventTypes,
  permissions,
  type TAuditListEntry,
  type TBuild,
  type TPage,
  type TPart,
  type TTraceEventEntry,
} from '@manifold/contract';
import { addOrder, licensingWorld, type LicensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('trace lists and the audit trail', (ctx) => {
  let world: LicensingWorld;
  let chain: MachineChain;
  let orderId: string;
  let jobEvents: string[];
  let idleEvents: string[];

  // One machine's story, and nothing else of events in this file: the lists' counts are exact.
  beforeAll(async () => {
    world = await licensingWorld(ctx());
    chain = new MachineChain(world);
    orderId = await addOrder(ctx(), policyFor(world, { serialization: { type: 'Hex', prefix: 'S', start: 255, end: 999 } }));
    const authorizationId = await grantAuthorization(ctx(), orderId, world.deviceId, 3);
    const job = [
      chain.next('jobStarted', { authorizationId, jobId: 'j1', quantity: 2 }),
      chain.next('jobEnded', { authorizationId, jobId: 'j1' }),
    ];
    const idle = Array.from({ length: 11 }, (_, index) => chain.next(index % 2 ? 'machineIdle' : 'machineOffline'));
    for (const event of [...job, ...idle]) {
      const response = await chain.sendStp(ctx(), event);
      expect(response.statusCode, response.body).toBe(200);
    }
    jobEvents = job.map((event) => event.eventId);
    idleEvents = idle.map((event) => event.eventId);
  });

  const get = async <T>(url: string, token?: string) => {
    const response = await ctx().call('GET', url, { token: token ?? (await ctx().adminToken()) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TPage<T>>();
  };

  it('needs a session for every list, and ADMIN for parts and the audit trail', async () => {
    const { token } = await ctx().createUser();
    for (const url of ['/ui/event/list', '/ui/build/list', '/ui/part/list', '/ui/audit/list']) {
      expectToken(await ctx().call('GET', url), 401, 'invalidSessionToken');
    }
    expectToken(await ctx().call('GET', '/ui/part/list', { token }), 403, 'actionNotAllowed');
    expectToken(await ctx().call('GET', '/ui/audit/list', { token }), 403, 'actionNotAllowed');
    expect((await get<TTraceEventEntry>('/ui/event/list', token)).totalNumOfItems).toBe(13);
    expect((await get<TBuild>('/ui/build/list', token)).totalNumOfItems).toBe(1);
  });

  it('event/list: newest first, 10 a page, filtered by design', async () => {
    const first = await get<TTraceEventEntry>('/ui/event/list');
    expect(first).toMatchObject({ pageNum: 1, numberOfItems: 10, totalNumOfItems: 13, totalNumOfPages: 2 });
    expect(first.data.map((entry) => entry.eventId)).toEqual([...idleEvents].reverse().slice(0, 10));
    const last = await get<TTraceEventEntry>('/ui/event/list?pageNum=2');
    expect(last.data.map((entry) => entry.eventId)).toEqual([idleEvents[0], ...[...jobEvents].reverse()]);

    const ofDesign = await get<TTraceEventEntry>(`/ui/event/list?dsiId=${world.revision.dsiId}`);
    expect(ofDesign.data.map((entry) => entry.eventId)).toEqual([...jobEvents].reverse());
    expect(ofDesign.data[0]).toMatchObject({
      id: jobEvents[1],
      version: 1,
      status: 'verified',
      chainFinding: null,
      sequence: 2,
      source: 'stp',
      event: { kind: 'jobEnded', deviceId: world.deviceId, orderId, dsiId: world.revision.dsiId, jobId: 'j1' },
    });
    expectToken(
      await ctx().call('GET', '/ui/event/list?dsiId=nope', { token: await ctx().adminToken() }),
      420,
      'packageNotPresent',
    );
  });

  it('build/list and part/list: the job\u2019s build and its serialised parts with their events', async () => {
    const builds = await get<TBuild>(`/ui/build/list?dsiId=${world.revision.dsiId}`);
    expect(builds.data).toEqual([
      expect.objectContaining({ jobId: 'j1', state: 'ended', quantity: 2, deviceId: world.deviceId, orderId }),
    ]);
    const parts = await get<TPart>('/ui/part/list');
    expect(parts.totalNumOfItems).toBe(2);
    expect(parts.data.map((part) => part.serialNumber).sort()).toEqual(['S100', 'SFF']);
    for (const part of parts.data) {
      expect(part).toMatchObject({
        dsiId: world.revision.dsiId,
        partQmsState: 'NO_QMS_STEP',
        revoked: false,
        buildId: builds.data[0]!.buildId,
        traceEvents: jobEvents,
      });
    }
    const one = await get<TPart>('/ui/part/list?serialNumber=S100');
    expect(one.data.map((part) => part.serialNumber)).toEqual(['S100']);
    expect((await get<TPart>('/ui/part/list?serialNumber=S999')).totalNumOfItems).toBe(0);
  });

  it('audit/list: every record with its wording, filtered by kind, time, actor and subject', async () => {
    const all = await get<TAuditListEntry>('/ui/audit/list');
    expect(all.numberOfItems).toBe(10);
    expect(all.data).toHaveLength(10);
    for (const entry of all.data) expect(entry.text).toBe(auditEventText[entry.eventType as keyof typeof auditEventText]);

    const ended = await get<TAuditListEntry>('/ui/audit/list?kind=jobEnded');
    expect(ended.data).toEqual([
      expect.objectContaining({
        eventType: 'jobEnded',
        text: 'Manufacturing job ended',
        actor: `device:${world.deviceId}`,
        subject: orderId,
        details: expect.objectContaining({ eventId: jobEvents[1], jobId: 'j1' }),
      }),
    ]);
    const ofMachine = await get<TAuditListEntry>(`/ui/audit/list?actor=device:${world.deviceId}&numberOfItems=100`);
    expect(ofMachine.totalNumOfItems).toBe(13);
    const ofOrder = await get<TAuditListEntry>(`/ui/audit/list?subject=${orderId}&kind=jobStarted`);
    expect(ofOrder.data.map((entry) => entry.text)).toEqual(['Manufacturing job started']);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await get<TAuditListEntry>(`/ui/audit/list?from=${future}`)).totalNumOfItems).toBe(0);
    expect((await get<TAuditListEntry>('/ui/audit/list?to=2000-01-01T00:00:00%2B01:00')).totalNumOfItems).toBe(0);
    expect((await get<TAuditListEntry>(`/ui/audit/list?to=${future}`)).totalNumOfItems).toBe(all.totalNumOfItems);
    const response = await ctx().call('GET', '/ui/audit/list?kind=somethingElse', { token: await ctx().adminToken() });
    expect(response.statusCode).toBe(400);
  });

  it('pages past the middle, read from the other end, are the same as one long page cut up', async () => {
    for (const url of ['/ui/event/list', '/ui/audit/list']) {
      const whole = (await get<{ id: string | number }>(`${url}?numberOfItems=500`)).data.map((entry) => entry.id);
      const size = 4;
      const pages = Math.ceil(whole.length / size);
      for (let pageNum = 1; pageNum <= pages + 1; pageNum += 1) {
        const page = await get<{ id: string | number }>(`${url}?numberOfItems=${size}&pageNum=${pageNum}`);
        expect(page.data.map((entry) => entry.id)).toEqual(whole.slice((pageNum - 1) * size, pageNum * size));
      }
    }
  });

  describe('the audit trail', () => {
    it('has wording for every kind and no call that edits or deletes it', () => {
      for (const kind of auditEventTypes) expect(auditEventText[kind]).toMatch(/^[A-Z]/);
      expect(Object.keys(permissions).filter((route) => route.includes('audit'))).toEqual(['GET /ui/audit/list']);
    });
  });
});
