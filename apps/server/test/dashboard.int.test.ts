import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DAYS, firstRunStepsOf, type TDashboard, type TPart } from '@manifold/contract';
import {
  addOrder,
  licensingWorld,
  type LicensingWorld,
  policyFor,
  registerApprovedMachine,
} from './helpers/licensing-fixtures.js';
import { multipartEntries } from './helpers/multipart.js';
import { testMachine } from './helpers/packages-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('home dashboard (GET /ui/dashboard)', (ctx) => {
  let admin: string;
  let user: string;
  let world: LicensingWorld;

  const db = () => ctx().app.services.database.db;
  const dashboard = async (token: string) => {
    const response = await ctx().call('GET', '/ui/dashboard', { token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TDashboard>();
  };
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    admin = await ctx().adminToken();
    user = (await ctx().createUser()).token;
  });

  it('answers 401 without a session', async () => {
    expectToken(await ctx().call('GET', '/ui/dashboard'), 401, 'invalidSessionToken');
  });

  it('an empty instance: every figure zero, the first run with nothing done (ADMIN), no peers or first run for a USER', async () => {
    const empty = await dashboard(admin);
    expect(empty.orders).toEqual({ live: 0, quantityLeft: 0 });
    expect(empty.authorizations).toEqual({ waitingToSend: 0 });
    expect(empty.machines).toEqual({ printing: 0, idle: 0, offline: 0, awaitingApproval: 0 });
    expect(empty.jobs).toEqual({ inProgress: 0 });
    expect(empty.recentEvents).toEqual([]);
    expect(empty.parts.days).toHaveLength(DASHBOARD_DAYS);
    expect(empty.parts.days.at(-1)!.day).toBe(today());
    expect(empty.parts).toMatchObject({ made: 0, passed: 0, failed: 0, passRate: null });
    expect(empty.peers).toEqual({ total: 0, list: [] });
    expect(empty.firstRun).toEqual({
      complete: false,
      steps: firstRunStepsOf({ keys: false, certificates: false, storage: false, peers: false, machines: false }),
    });
    expect(empty.firstRun!.steps.map(({ step }) => step)).toEqual(['keys', 'certificates', 'storage', 'peers', 'machines']);
    const forUser = await dashboard(user);
    expect(forUser.peers).toBeNull();
    expect(forUser.firstRun).toBeNull();
    expect(forUser.orders).toEqual(empty.orders);
  });

  describe('with orders, machines, jobs, inspections and a peer', () => {
    let parts: TPart[];
    let printing: MachineChain;
    let running: string;

    beforeAll(async () => {
      world = await licensingWorld(ctx()); // keys, certificates, one approved machine (idle)
      // order 1: 20, of which 5 authorized and sent to the idle machine, which made 3 parts
      const first = await addOrder(ctx(), policyFor(world, { quantity: 20 }));
      const idle = new MachineChain(world);
      const sent = await grantAuthorization(ctx(), first, world.deviceId, 5);
      for (const event of [
        idle.next('jobStarted', { authorizationId: sent, jobId: 'd1', quantity: 3 }),
        idle.next('jobEnded', { authorizationId: sent, jobId: 'd1' }),
      ]) {
        const response = await idle.sendStp(ctx(), event);
        expect(response.statusCode, response.body).toBe(200);
      }
      // order 2: 10, of which 3 authorized to a second machine and sent, 2 more waiting to be sent
      const second = await addOrder(ctx(), policyFor(world, { quantity: 10 }));
      printing = new MachineChain(await registerApprovedMachine(ctx(), world.root));
      running = await grantAuthorization(ctx(), second, printing.world.deviceId, 3);
      await grantAuthorization(ctx(), second, printing.world.deviceId, 2, { send: false });
      const started = await printing.sendStp(
        ctx(),
        printing.next('jobStarted', { authorizationId: running, jobId: 'd2', quantity: 1 }),
      );
      expect(started.statusCode, started.body).toBe(200);
      // order 3 is revoked: not live
      const third = await addOrder(ctx(), policyFor(world, { quantity: 7 }));
      const revoked = await ctx().call('POST', '/ui/order/revoke', { token: admin, body: { orderId: third } });
      expect(revoked.statusCode, revoked.body).toBe(200);
      // a machine that went offline, and one waiting for approval
      const offline = new MachineChain(await registerApprovedMachine(ctx(), world.root));
      const off = await offline.sendStp(ctx(), offline.next('machineOffline'));
      expect(off.statusCode, off.body).toBe(200);
      const pending = await testMachine(world.root);
      const registered = await ctx().call('POST', '/apl/registration/add', { body: await pending.request() });
      expect(registered.statusCode, registered.body).toBe(200);
      // two of the made parts inspected: one passed, one failed
      const listed = await ctx().call('GET', '/ui/part/list?numberOfItems=100', { token: admin });
      parts = listed.json<{ data: TPart[] }>().data.filter((part) => part.authorizationId === sent);
      expect(parts).toHaveLength(3);
      for (const [part, result] of [
        [parts[0]!, 'passed'],
        [parts[1]!, 'failed'],
      ] as const) {
        const { body, headers } = multipartEntries([
          [
            'inspection',
            JSON.stringify({
              partId: part.id,
              result,
              technician: 'Grace',
              ...(result === 'failed' ? { reason: 'warped' } : {}),
            }),
          ],
        ]);
        const inspected = await ctx().app.inject({
          method: 'POST',
          url: '/ui/qms/inspection',
          headers: { ...headers, authorization: `Bearer ${user}` },
          payload: body,
        });
        expect(inspected.statusCode, inspected.body).toBe(200);
      }
      // a peer with what its outbox holds (not due, so the delivery job leaves it alone)
      const now = new Date().toISOString();
      const peerId = randomUUID();
      await db()
        .insertInto('manage_instances')
        .values({
          id: peerId,
          manage_site_name: 'Downstream plant',
          manage_url: 'https://downstream.example',
          manage_type: 'downStreamManage',
          registration_state: 'Approved',
          initiator: 1,
          signing_certificate: null,
          encryption_certificate: null,
          version: 1,
          created_at: now,
          updated_at: now,
          registration_nonce: randomUUID(),
          signing_fingerprint: null,
        })
        .execute();
      const message = (state: string, deliveredAt: string | null) => ({
        kind: 'event',
        target_kind: 'manage',
        target_id: peerId,
        subject_id: randomUUID(),
        payload: '{}',
        state,
        attempts: state === 'pending' ? 0 : 1,
        next_attempt_at: '2999-01-01T00:00:00.000Z',
        last_error: null,
        created_at: now,
        updated_at: now,
        message_id: randomUUID(),
        delivered_at: deliveredAt,
        expires_at: null,
      });
      await db()
        .insertInto('outbox')
        .values([
          message('pending', null),
          message('pending', null),
          message('failed', null),
          message('delivered', '2026-01-02T03:04:05.000Z'),
          message('delivered', '2026-02-03T04:05:06.000Z'),
          message('delivered', '2026-01-01T00:00:00.000Z'),
        ])
        .execute();
    });

    it('counts what the fixtures hold (hand-counted)', async () => {
      const figures = await dashboard(admin);
      // live: orders 1 and 2 (order 3 revoked); left: (20 − 5) + (10 − 3 − 2)
      expect(figures.orders).toEqual({ live: 2, quantityLeft: 20 });
      expect(figures.authorizations).toEqual({ waitingToSend: 1 });
      expect(figures.machines).toEqual({ printing: 1, idle: 1, offline: 1, awaitingApproval: 1 });
      expect(figures.jobs).toEqual({ inProgress: 1 });
      // parts made today: the 3 of job d1 and the 1 of job d2 (counted when their job reported them)
      const made = await db()
        .selectFrom('parts')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      expect(figures.parts.days.at(-1)).toEqual({ day: today(), made: Number(made.n), passed: 1, failed: 1 });
      expect(figures.parts).toMatchObject({ made: Number(made.n), passed: 1, failed: 1, passRate: 0.5 });
      expect(figures.parts.days.slice(0, -1).every((day) => day.made === 0 && day.passed === 0 && day.failed === 0)).toBe(true);
      // the newest events first: the failed inspection (the server's chain) before the passed one
      expect(figures.recentEvents.slice(0, 2).map((event) => [event.kind, event.deviceName])).toEqual([
        ['qualityCheckFailed', null],
        ['qualityCheckPassed', null],
      ]);
      expect(figures.recentEvents.length).toBeLessThanOrEqual(8);
      expect(figures.recentEvents.some((event) => event.kind === 'machineOffline')).toBe(true);
      expect(figures.peers).toEqual({
        total: 1,
        list: [
          {
            id: expect.any(String),
            name: 'Downstream plant',
            type: 'downStreamManage',
            registrationState: 'Approved',
            pending: 2,
            failed: 1,
            delivered: 3,
            lastDeliveredAt: '2026-02-03T04:05:06.000Z',
          },
        ],
      });
      expect(figures.firstRun).toEqual({
        complete: false,
        steps: firstRunStepsOf({ keys: true, certificates: true, storage: false, peers: true, machines: true }),
      });
    });

    it('a USER sees the same figures without peers and first run', async () => {
      const [forAdmin, forUser] = [await dashboard(admin), await dashboard(user)];
      const { peers: _peers, firstRun: _firstRun, generatedAt: _a, ...shared } = forAdmin;
      const { peers, firstRun, generatedAt: _b, ...sharedUser } = forUser;
      expect(peers).toBeNull();
      expect(firstRun).toBeNull();
      expect(sharedUser).toEqual(shared);
    });

    it('the first run is complete once storage is chosen', async () => {
      const selected = await ctx().call('POST', '/ui/admin/storage/provider', { token: admin, body: { identifier: 'local' } });
      expect(selected.statusCode, selected.body).toBe(200);
      const figures = await dashboard(admin);
      expect(figures.firstRun?.complete).toBe(true);
      expect(figures.firstRun?.steps.every((step) => step.done)).toBe(true);
    });

    it('the parts of a failed or cancelled job were never made: "made" leaves them out (a part failed at inspection stays made)', async () => {
      const before = await dashboard(admin);
      // the inspected parts of job d1: one failed at inspection (FAILURE), yet made
      expect(before.parts).toMatchObject({ made: 3, passed: 1, failed: 1 });
      for (const event of [
        printing.next('jobFailed', { authorizationId: running, jobId: 'd3', quantity: 2 }),
        printing.next('jobCancelled', { authorizationId: running, jobId: 'd4', quantity: 1 }),
      ]) {
        const response = await printing.sendStp(ctx(), event);
        expect(response.statusCode, response.body).toBe(200);
      }
      const lost = await db()
        .selectFrom('parts')
        .select('qms_state')
        .where('authorization_id', '=', running)
        .where('inspection_result', 'is', null)
        .execute();
      expect(lost.map((part) => part.qms_state).sort()).toEqual(['CANCELED', 'FAILURE', 'FAILURE']);
      const after = await dashboard(admin);
      expect(after.parts).toMatchObject({ made: 3, passed: 1, failed: 1, passRate: 0.5 });
      expect(after.parts.days.at(-1)).toEqual({ day: today(), made: 3, passed: 1, failed: 1 });
    });
  });
});
