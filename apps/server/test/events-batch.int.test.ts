import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { TRACE_EVENT_BATCH_MAX, type TOrderDetail, type TTraceEventBatchResult } from '@manifold/contract';
import { eventHash } from '../src/modules/events/trace-event-format.js';
import {
  addOrder,
  licensingWorld,
  type LicensingWorld,
  policyFor,
  registerApprovedMachine,
  stpCall,
  stpEnvelope,
} from './helpers/licensing-fixtures.js';
import { grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

/**
 * A machine's batch (docs/traceability.md, "Batches"): the list form of its signed events in one
 * STP envelope, checked whole before anything is stored, then stored in one transaction.
 */
describeEachDatabase('trace events in batches', (ctx) => {
  let world: LicensingWorld;

  beforeAll(async () => {
    world = await licensingWorld(ctx());
  });

  const db = () => ctx().app.services.database.db;
  const ownMachine = async () => new MachineChain(await registerApprovedMachine(ctx(), world.root));

  const eventsOf = (deviceId: string) =>
    db()
      .selectFrom('trace_events')
      .select(['event_id', 'sequence', 'previous_hash', 'event_hash', 'chain_finding'])
      .where('device_id', '=', deviceId)
      .orderBy('sequence')
      .execute();

  const auditCount = async (type: string, subject: string) =>
    (await db().selectFrom('audit_events').select('id').where('event_type', '=', type).where('subject', '=', subject).execute())
      .length;

  const batch = async (chain: MachineChain, events: ReturnType<MachineChain['next']>[]) => {
    const response = await chain.sendBatch(ctx(), events);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<TTraceEventBatchResult>();
  };

  it('stores a batch in order, once per eventId within it and across batches, and answers each receipt', async () => {
    const chain = await ownMachine();
    const [a, b, c] = [chain.next('machineIdle'), chain.next('machineOffline'), chain.next('machineIdle')];
    const first = await batch(chain, [a, b, a, c]);
    const receipt = (event: typeof a) => ({ eventId: event.eventId, eventHash: eventHash(event), chainFinding: null });
    expect(first).toEqual({
      received: 4,
      stored: 3,
      repeated: 1,
      findings: 0,
      events: [receipt(a), receipt(b), receipt(a), receipt(c)],
    });

    // the next batch repeats two stored events around a new one
    const d = chain.next('machineIdle');
    const second = await batch(chain, [b, d, c]);
    expect(second).toEqual({ received: 3, stored: 1, repeated: 2, findings: 0, events: [receipt(b), receipt(d), receipt(c)] });

    expect(await eventsOf(chain.world.deviceId)).toEqual([
      { event_id: a.eventId, sequence: 1, previous_hash: null, event_hash: eventHash(a), chain_finding: null },
      { event_id: b.eventId, sequence: 2, previous_hash: eventHash(a), event_hash: eventHash(b), chain_finding: null },
      { event_id: c.eventId, sequence: 3, previous_hash: eventHash(b), event_hash: eventHash(c), chain_finding: null },
      { event_id: d.eventId, sequence: 4, previous_hash: eventHash(c), event_hash: eventHash(d), chain_finding: null },
    ]);
    expect(await auditCount('machineIdle', chain.world.deviceId)).toBe(3);
    expect(await auditCount('machineOffline', chain.world.deviceId)).toBe(1);
    const head = await db()
      .selectFrom('trace_chains')
      .select(['length', 'head_hash'])
      .where('device_id', '=', chain.world.deviceId)
      .executeTakeFirstOrThrow();
    expect(head).toEqual({ length: 4, head_hash: eventHash(d) });
    // a single event goes on from the batch's head
    const e = chain.next('machineIdle');
    const single = await chain.sendStp(ctx(), e);
    expect(single.json()).toEqual(receipt(e));
  });

  it('refuses the whole batch when one event names a foreign authorization, and stores nothing of it', async () => {
    const chain = await ownMachine();
    const other = await ownMachine();
    const orderId = await addOrder(ctx(), policyFor(world));
    const foreign = await grantAuthorization(ctx(), orderId, other.world.deviceId, 1);
    const own = await grantAuthorization(ctx(), orderId, chain.world.deviceId, 1);
    const events = [
      chain.event('jobStarted', { authorizationId: own, jobId: 'j1' }),
      chain.event('jobStarted', { authorizationId: foreign, jobId: 'j2' }),
      chain.event('machineIdle'),
    ];
    expectToken(await chain.sendBatch(ctx(), events), 420, 'authorizationNotAvailable', 'body.events[1].authorizationId');
    expect(await eventsOf(chain.world.deviceId)).toEqual([]);
    expect(await db().selectFrom('builds').select('id').where('authorization_id', '=', own).execute()).toEqual([]);

    // the same eventId with other content inside one batch, and a batch carrying another machine's event
    const idle = chain.event('machineIdle');
    expectToken(
      await chain.sendBatch(ctx(), [idle, { ...idle, kind: 'machineOffline' }]),
      420,
      'traceEventIdNotValid',
      'body.events[1].eventId',
    );
    const stranger = other.event('machineIdle');
    const list = { events: [...(await chain.list([idle])).events, ...(await other.list([stranger])).events] };
    expectToken(
      await stpCall(ctx(), chain.world, '/stp/event', list),
      401,
      'traceEventSignatureInvalid',
      'body.events[1].deviceId',
    );
    expect(await eventsOf(chain.world.deviceId)).toEqual([]);
    expect(await eventsOf(other.world.deviceId)).toEqual([]);
  });

  it('refuses a replayed batch envelope (its nonce is spent with the events) and keeps the events once', async () => {
    const chain = await ownMachine();
    const events = [chain.next('machineIdle'), chain.next('machineIdle')];
    const envelope = await stpEnvelope(chain.world.machine, chain.world.deviceId, '/stp/event', await chain.list(events));
    const first = await ctx().call('POST', '/stp/event', { body: envelope });
    expect(first.statusCode, first.body).toBe(200);
    expectToken(await ctx().call('POST', '/stp/event', { body: envelope }), 401, 'stpNonceReplayed');
    expect(await eventsOf(chain.world.deviceId)).toHaveLength(2);
    expect(await db().selectFrom('stp_nonces').select('nonce').where('device_id', '=', chain.world.deviceId).execute()).toEqual([
      { nonce: envelope.nonce },
    ]);
  });

  it('refuses an empty batch and one over the limit with 400 malformedRequest', async () => {
    const chain = await ownMachine();
    const [one] = (await chain.list([chain.event('machineIdle')])).events;
    expectToken(await stpCall(ctx(), chain.world, '/stp/event', { events: [] }), 400, 'malformedRequest', 'body.events');
    const over = { events: Array.from({ length: TRACE_EVENT_BATCH_MAX + 1 }, () => one) };
    expectToken(await stpCall(ctx(), chain.world, '/stp/event', over), 400, 'malformedRequest', 'body.events');
    expect(await eventsOf(chain.world.deviceId)).toEqual([]);
  });

  it('records a gap and a fork inside a batch as findings and goes on from the new head', async () => {
    const chain = await ownMachine();
    const first = chain.next('machineIdle');
    const second = chain.next('machineIdle');
    const gap = chain.event('machineOffline', { previousHash: 'f'.repeat(64) });
    chain.head = eventHash(gap);
    const fork = chain.event('machineIdle', { previousHash: eventHash(first) });
    chain.head = eventHash(fork);
    const after = chain.next('machineIdle');
    const answer = await batch(chain, [first, second, gap, fork, after]);
    expect(answer.findings).toBe(2);
    expect(answer.events.map((receipt) => receipt.chainFinding)).toEqual([null, null, 'gap', 'fork', null]);
    expect((await eventsOf(chain.world.deviceId)).map((row) => [row.sequence, row.chain_finding])).toEqual([
      [1, null],
      [2, null],
      [3, 'gap'],
      [4, 'fork'],
      [5, null],
    ]);
    const breaks = await db()
      .selectFrom('audit_events')
      .select('details')
      .where('event_type', '=', 'traceChainBroken')
      .where('subject', '=', chain.world.deviceId)
      .orderBy('id')
      .execute();
    expect(breaks.map((row) => JSON.parse(row.details!) as unknown)).toEqual([
      {
        eventId: gap.eventId,
        finding: 'gap',
        previousHash: 'f'.repeat(64),
        expectedPreviousHash: eventHash(second),
      },
      { eventId: fork.eventId, finding: 'fork', previousHash: eventHash(first), expectedPreviousHash: eventHash(gap) },
    ]);
  });

  it('leaves the same quantities, builds and parts after a job run sent as one batch as sent one by one', async () => {
    const run = async (send: (chain: MachineChain, events: ReturnType<MachineChain['next']>[]) => Promise<void>) => {
      const chain = await ownMachine();
      const orderId = await addOrder(
        ctx(),
        policyFor(world, {
          quantity: 20,
          breakage: { policy: 'Quantity', value: 1 },
          serialization: { type: 'Dec', prefix: 'B-', start: 1, end: 50 },
        }),
      );
      const authorizationId = await grantAuthorization(ctx(), orderId, chain.world.deviceId, 10);
      const job = (kind: Parameters<MachineChain['next']>[0], jobId: string, quantity: number | null = null) =>
        chain.next(kind, { authorizationId, jobId, quantity });
      const events = [
        job('jobStarted', 'j1', 3),
        job('jobPaused', 'j1'),
        job('jobResumed', 'j1'),
        job('jobEnded', 'j1'),
        job('jobStarted', 'j2', 2),
        job('jobFailed', 'j2'),
        job('jobStarted', 'j3', 1),
        job('jobCancelled', 'j3'),
        job('jobEnded', 'j4', 2),
        job('jobEnded', 'j2'),
        job('quantityConsumed', 'j4', 2),
      ];
      events.splice(5, 0, events[3]!); // a repeat of the end of j1 in the middle
      await send(chain, events);
      const order = (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token: await ctx().adminToken() })).json<
        TOrderDetail & { allocatedQuantity: number; remainingQuantity: number }
      >();
      const builds = await db()
        .selectFrom('builds')
        .select(['job_id', 'state', 'quantity', 'started_at', 'finished_at'])
        .where('authorization_id', '=', authorizationId)
        .orderBy('job_id')
        .execute();
      const parts = await db()
        .selectFrom('parts')
        .innerJoin('builds', 'builds.id', 'parts.build_id')
        .select(['builds.job_id', 'parts.serial_number', 'parts.qms_state', 'parts.counted'])
        .where('parts.authorization_id', '=', authorizationId)
        .orderBy('builds.job_id')
        .orderBy('parts.serial_number')
        .orderBy('parts.counted')
        .execute();
      const authorization = await db()
        .selectFrom('authorizations')
        .select('quantity')
        .where('id', '=', authorizationId)
        .executeTakeFirstOrThrow();
      return {
        order: { allocated: order.allocatedQuantity, expired: order.expiredQuantity, remaining: order.remainingQuantity },
        authorization: authorization.quantity,
        // times are the events' own, which differ between the two runs
        builds: builds.map(({ started_at, finished_at, ...build }) => ({
          ...build,
          started: started_at !== null,
          finished: finished_at !== null,
        })),
        parts,
        stored: (await eventsOf(chain.world.deviceId)).length,
      };
    };
    const oneByOne = await run(async (chain, events) => {
      for (const event of events) {
        const response = await chain.sendStp(ctx(), event);
        expect(response.statusCode, response.body).toBe(200);
      }
    });
    const batched = await run(async (chain, events) => {
      expect(await batch(chain, events)).toMatchObject({ received: 12, stored: 11, repeated: 1, findings: 0 });
    });
    expect(batched).toEqual(oneByOne);
    expect(batched.stored).toBe(11);
    expect(batched.order).toEqual({ allocated: 8, expired: 2, remaining: 10 });
    expect(batched.parts.map((part) => part.serial_number).filter(Boolean)).toEqual(['B-1', 'B-2', 'B-3', 'B-4', 'B-5']);
  });

  it('takes a batch of the most events at once', async () => {
    const chain = await ownMachine();
    const events = Array.from({ length: TRACE_EVENT_BATCH_MAX }, () => chain.next('machineIdle', { data: { id: randomUUID() } }));
    const answer = await batch(chain, events);
    expect(answer).toMatchObject({ received: TRACE_EVENT_BATCH_MAX, stored: TRACE_EVENT_BATCH_MAX, repeated: 0, findings: 0 });
    const rows = await eventsOf(chain.world.deviceId);
    expect(rows).toHaveLength(TRACE_EVENT_BATCH_MAX);
    expect(rows.at(-1)).toMatchObject({ sequence: TRACE_EVENT_BATCH_MAX, event_hash: chain.head });
  });
});
