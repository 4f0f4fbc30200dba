import { expect, it } from 'vitest';
import type { TAuthorizedPolicyListInput, TOrderDetail } from '@manifold/contract';
import { addOrder, policyFor, registerApprovedMachine, suiteLicensingWorld } from './helpers/licensing-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { multipartEntries } from './helpers/multipart.js';
import { describeEachDatabase } from './helpers/test-app.js';

describeEachDatabase('job events: builds, parts and the breakage policy', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  const db = () => ctx().app.services.database.db;

  /** A machine of its own with an authorization of `quantity` from a fresh order, sent to it. */
  const licensed = async (overrides: Partial<TAuthorizedPolicyListInput>, quantity: number, authorizeExtra = {}) => {
    const chain = new MachineChain(await registerApprovedMachine(ctx(), world.root));
    const orderId = await addOrder(ctx(), policyFor(world, { quantity: 10, ...overrides }));
    const authorizationId = await grant(chain, orderId, quantity, authorizeExtra);
    return { chain, orderId, authorizationId };
  };

  const grant = (chain: MachineChain, orderId: string, quantity: number, extra = {}) =>
    grantAuthorization(ctx(), orderId, chain.world.deviceId, quantity, { extra });

  const report = async (chain: MachineChain, ...events: ReturnType<MachineChain['next']>[]) => {
    for (const event of events) {
      const response = await chain.sendStp(ctx(), event);
      expect(response.statusCode, response.body).toBe(200);
    }
  };

  const figures = async (orderId: string) => {
    const response = await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token: await ctx().adminToken() });
    expect(response.statusCode, response.body).toBe(200);
    const order = response.json<TOrderDetail & { allocatedQuantity: number; remainingQuantity: number }>();
    return { allocated: order.allocatedQuantity, expired: order.expiredQuantity, remaining: order.remainingQuantity };
  };

  const authorizationQuantity = async (id: string) =>
    (await db().selectFrom('authorizations').select('quantity').where('id', '=', id).executeTakeFirstOrThrow()).quantity;

  const partsOf = (authorizationId: string) =>
    db()
      .selectFrom('parts')
      .innerJoin('builds', 'builds.id', 'parts.build_id')
      .select(['builds.job_id', 'parts.serial_number', 'parts.qms_state', 'parts.counted', 'parts.device_id'])
      .where('parts.authorization_id', '=', authorizationId)
      .orderBy('parts.serial_number')
      .orderBy('parts.qms_state')
      .execute();

  const buildOf = (authorizationId: string, jobId: string) =>
    db()
      .selectFrom('builds')
      .selectAll()
      .where('authorization_id', '=', authorizationId)
      .where('job_id', '=', jobId)
      .executeTakeFirst();

  it('Strict: an ended job makes serialised parts; a failed job\u2019s parts count, once', async () => {
    const { chain, orderId, authorizationId } = await licensed(
      { breakage: { policy: 'Strict' }, serialization: { type: 'Dec', prefix: 'P-', start: 100, end: 199 } },
      4,
    );
    const ended = chain.next('jobEnded', { authorizationId, jobId: 'j1' });
    await report(chain, chain.next('jobStarted', { authorizationId, jobId: 'j1', quantity: 2 }));
    expect(await buildOf(authorizationId, 'j1')).toMatchObject({
      state: 'started',
      quantity: 2,
      device_id: chain.world.deviceId,
    });
    await report(chain, ended);
    expect(await buildOf(authorizationId, 'j1')).toMatchObject({ state: 'ended', quantity: 2 });
    const j1 = [
      { job_id: 'j1', serial_number: 'P-100', qms_state: 'NO_QMS_STEP', counted: 0, device_id: chain.world.deviceId },
      { job_id: 'j1', serial_number: 'P-101', qms_state: 'NO_QMS_STEP', counted: 0, device_id: chain.world.deviceId },
    ];
    expect(await partsOf(authorizationId)).toEqual(j1);
    expect(await figures(orderId)).toEqual({ allocated: 4, expired: 0, remaining: 6 });

    await report(
      chain,
      chain.next('jobStarted', { authorizationId, jobId: 'j2', quantity: 2 }),
      chain.next('jobFailed', { authorizationId, jobId: 'j2' }),
    );
    expect(await figures(orderId)).toEqual({ allocated: 2, expired: 2, remaining: 6 });
    expect(await authorizationQuantity(authorizationId)).toBe(2);
    // a second end of a finished job, and a repeated event, change nothing
    await report(chain, chain.next('jobEnded', { authorizationId, jobId: 'j2' }));
    expect((await chain.sendStp(ctx(), ended)).statusCode).toBe(200);
    const parts = await partsOf(authorizationId);
    expect(parts).toHaveLength(4);
    expect(parts.filter((part) => part.qms_state === 'FAILURE')).toEqual([
      expect.objectContaining({ job_id: 'j2', serial_number: null, counted: 1 }),
      expect.objectContaining({ job_id: 'j2', serial_number: null, counted: 1 }),
    ]);
    expect(await figures(orderId)).toEqual({ allocated: 2, expired: 2, remaining: 6 });

    // the next made part takes the next reserved serial number
    await report(chain, chain.next('jobEnded', { authorizationId, jobId: 'j3', quantity: 1 }));
    expect((await partsOf(authorizationId)).map((part) => part.serial_number)).toContain('P-102');
  });

  it('revoking an authorization gives back only what it has not used', async () => {
    const { chain, orderId, authorizationId } = await licensed({ breakage: { policy: 'Strict' } }, 5);
    await report(
      chain,
      chain.next('jobEnded', { authorizationId, jobId: 'made', quantity: 2 }),
      chain.next('jobStarted', { authorizationId, jobId: 'broken', quantity: 1 }),
      chain.next('jobFailed', { authorizationId, jobId: 'broken' }),
    );
    expect(await figures(orderId)).toEqual({ allocated: 4, expired: 1, remaining: 5 });
    const revoked = await ctx().call('POST', '/ui/authorization/revoke', {
      token: await ctx().adminToken(),
      body: { orderId, authorizationId },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    // 5 authorized: 2 made stay used, 1 broken stays expired, 2 unused come back
    expect(await figures(orderId)).toEqual({ allocated: 2, expired: 1, remaining: 7 });
  });

  it('a part that failed inspection was made: it keeps its serial number, its unit and its place against breakage', async () => {
    const weight = { id: 'weight', type: 'decimal', low: 10, high: 12, required: true, resetValue: 11 } as const;
    const { chain, orderId, authorizationId } = await licensed(
      {
        breakage: { policy: 'Strict' },
        qualityParameters: [weight],
        serialization: { type: 'Dec', prefix: 'P-', start: 100, end: 199 },
      },
      4,
    );
    await report(chain, chain.next('jobEnded', { authorizationId, jobId: 'first', quantity: 2 }));
    const made = await db().selectFrom('parts').select('id').where('authorization_id', '=', authorizationId).execute();
    expect(made).toHaveLength(2);
    for (const { id } of made) {
      const form = multipartEntries([
        [
          'inspection',
          JSON.stringify({
            partId: id,
            result: 'failed',
            reason: 'warped',
            technician: 'Grace',
            qualityParameters: [{ id: 'weight', values: [11] }],
          }),
        ],
      ]);
      const inspected = await ctx().app.inject({
        method: 'POST',
        url: '/ui/qms/inspection',
        headers: { ...form.headers, authorization: `Bearer ${await ctx().adminToken()}` },
        payload: form.body,
      });
      expect(inspected.statusCode, inspected.body).toBe(200);
    }
    expect((await partsOf(authorizationId)).map((part) => [part.serial_number, part.qms_state])).toEqual([
      ['P-100', 'FAILURE'],
      ['P-101', 'FAILURE'],
    ]);

    // the next made part takes the next serial number, not one a failed part holds
    await report(chain, chain.next('jobEnded', { authorizationId, jobId: 'second', quantity: 1 }));
    expect((await partsOf(authorizationId)).map((part) => part.serial_number)).toEqual(['P-100', 'P-101', 'P-102']);

    // a failed job of 3 can take only the one unit no part was made of
    await report(chain, chain.next('jobFailed', { authorizationId, jobId: 'broken', quantity: 3 }));
    expect(await authorizationQuantity(authorizationId)).toBe(3);
    expect(await figures(orderId)).toEqual({ allocated: 3, expired: 1, remaining: 6 });

    // revoking gives back nothing: its 3 units were made into parts, failed inspection or not
    const revoked = await ctx().call('POST', '/ui/authorization/revoke', {
      token: await ctx().adminToken(),
      body: { orderId, authorizationId },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(await figures(orderId)).toEqual({ allocated: 3, expired: 1, remaining: 6 });
  });

  it('Trusted: failed and cancelled parts are given back', async () => {
    const { chain, orderId, authorizationId } = await licensed({ breakage: { policy: 'Trusted' } }, 3);
    await report(
      chain,
      chain.next('jobFailed', { authorizationId, jobId: 'a', quantity: 3 }),
      chain.next('jobCancelled', { authorizationId, jobId: 'b', quantity: 2 }),
    );
    expect(await figures(orderId)).toEqual({ allocated: 3, expired: 0, remaining: 7 });
    expect(await authorizationQuantity(authorizationId)).toBe(3);
    const parts = await partsOf(authorizationId);
    expect(parts.map((part) => [part.qms_state, part.counted])).toEqual([
      ['CANCELED', 0],
      ['CANCELED', 0],
      ['FAILURE', 0],
      ['FAILURE', 0],
      ['FAILURE', 0],
    ]);
  });

  it('Quantity: the first k broken parts of the order are given back, later ones count', async () => {
    const { chain, orderId, authorizationId } = await licensed({ breakage: { policy: 'Quantity', value: 1 } }, 4);
    await report(chain, chain.next('jobFailed', { authorizationId, jobId: 'a', quantity: 2 }));
    expect(await figures(orderId)).toEqual({ allocated: 3, expired: 1, remaining: 6 });
    await report(chain, chain.next('jobCancelled', { authorizationId, jobId: 'b', quantity: 1 }));
    expect(await figures(orderId)).toEqual({ allocated: 2, expired: 2, remaining: 6 });
    expect(await authorizationQuantity(authorizationId)).toBe(2);
  });

  it('Percentage: an allowance of p% of the order quantity, paused and resumed jobs, inspection pending', async () => {
    const weight = { id: 'weight', type: 'decimal', low: 10, high: 12, required: true, resetValue: 11 } as const;
    const { chain, orderId, authorizationId } = await licensed(
      { breakage: { policy: 'Percentage', value: 20 }, qualityParameters: [weight] },
      5,
    );
    await report(
      chain,
      chain.next('jobStarted', { authorizationId, jobId: 'a', quantity: 1 }),
      chain.next('jobPaused', { authorizationId, jobId: 'a' }),
    );
    expect((await buildOf(authorizationId, 'a'))?.state).toBe('paused');
    await report(chain, chain.next('jobResumed', { authorizationId, jobId: 'a' }));
    expect((await buildOf(authorizationId, 'a'))?.state).toBe('started');
    await report(chain, chain.next('jobFailed', { authorizationId, jobId: 'a' })); // 1 of 2 allowed
    expect(await figures(orderId)).toEqual({ allocated: 5, expired: 0, remaining: 5 });
    await report(chain, chain.next('jobCancelled', { authorizationId, jobId: 'b', quantity: 2 })); // 1 free, 1 counts
    expect(await figures(orderId)).toEqual({ allocated: 4, expired: 1, remaining: 5 });
    await report(chain, chain.next('jobEnded', { authorizationId, jobId: 'c', quantity: 2 }));
    expect((await partsOf(authorizationId)).filter((part) => part.qms_state === 'MANUFACTURED')).toHaveLength(2);
  });

  it('one order\u2019s allowance holds when machines break parts at the same time', async () => {
    const first = await licensed({ breakage: { policy: 'Quantity', value: 2 } }, 3);
    const others = await Promise.all(
      [0, 1].map(async () => {
        const chain = new MachineChain(await registerApprovedMachine(ctx(), world.root));
        return { chain, authorizationId: await grant(chain, first.orderId, 3) };
      }),
    );
    const machines = [{ chain: first.chain, authorizationId: first.authorizationId }, ...others];
    const responses = await Promise.all(
      machines.map(({ chain, authorizationId }) =>
        chain.sendStp(ctx(), chain.next('jobFailed', { authorizationId, jobId: 'x', quantity: 1 })),
      ),
    );
    for (const response of responses) expect(response.statusCode, response.body).toBe(200);
    // 3 broken parts, 2 given back: exactly one counts
    expect(await figures(first.orderId)).toEqual({ allocated: 8, expired: 1, remaining: 1 });
  });

  it('refuses a job event without its jobId', async () => {
    const { chain, authorizationId } = await licensed({}, 1);
    const response = await chain.sendStp(ctx(), chain.event('jobStarted', { authorizationId }));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ errorToken: 'malformedRequest', field: 'body.jobId' });
  });
});
