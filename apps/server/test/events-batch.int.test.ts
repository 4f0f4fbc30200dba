import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  TRACE_EVENT_BATCH_MAX,
  type TOrderDetail,
  type TTraceEventBatchResult,
  type TTraceEventUploadResult,
  type TTraceHistory,
} from '@manifold/contract';
import { EventChain } from '@manifold/machine-simulator';
import { batchIdOf, eventHash, STP_EVENT_PATH } from '../src/modules/events/trace-event-format.js';
import { verifyHistory } from '../src/modules/events/verify-history.js';
import {
  addOrder,
  policyFor,
  registerApprovedMachine,
  stpCall,
  stpEnvelope,
  suiteLicensingWorld,
} from './helpers/licensing-fixtures.js';
import { uploadForm } from './helpers/packages-fixtures.js';
import { chainBreaks, grantAuthorization, MachineChain } from './helpers/trace-fixtures.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

/**
 * A machine's batch (docs/traceability.md, "Batches"): the list form of its signed events in one
 * STP envelope, or the batch-signed form ("Batch-signed events": one signature over
 * `{batch: […]}`, the envelope stored once, each event's proof its place in it), checked whole
 * before anything is stored, then stored in one transaction.
 */
describeEachDatabase('trace events in batches', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  const db = () => ctx().app.services.database.db;
  const ownMachine = async () => new MachineChain(await registerApprovedMachine(ctx(), world.root));

  /** A machine with an authorization of its own, and another machine with one from the same order. */
  const machineWithForeignAuthorization = async () => {
    const chain = await ownMachine();
    const other = await ownMachine();
    const orderId = await addOrder(ctx(), policyFor(world));
    const foreign = await grantAuthorization(ctx(), orderId, other.world.deviceId, 1);
    const own = await grantAuthorization(ctx(), orderId, chain.world.deviceId, 1);
    return { chain, other, own, foreign };
  };

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
    const { chain, other, own, foreign } = await machineWithForeignAuthorization();
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

  it('refuses a batch nested too deeply with 400 malformedRequest (no server error) and stores nothing', async () => {
    const chain = await ownMachine();
    const envelope = await chain.signedBatch([chain.event('machineIdle')]);
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    // a JSON text written by hand: no signer walks a value nested this deeply
    for (const body of [
      `{"batch":[{"eventId":"${randomUUID()}","note":${nested(50_000)}}]}`,
      `{"events":[{"proof":{"format":"xml","xml":"<TraceEvent/>"},"note":${nested(50_000)}}]}`,
      `{"batch":[{"eventId":"${randomUUID()}","note":${nested(40)}}]}`,
    ]) {
      const payload = JSON.stringify({ ...envelope, body: '(body)' }).replace('"(body)"', body);
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/stp/event',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expectToken(response, 400, 'malformedRequest', 'body');
    }
    expect(await eventsOf(chain.world.deviceId)).toEqual([]);
  });

  it.each(['list', 'batch-signed'] as const)(
    'records a gap and a fork inside a batch (%s form) as findings, goes on from the new head, and exports them',
    async (form) => {
      const chain = await ownMachine();
      const first = chain.next('machineIdle');
      const second = chain.next('machineIdle');
      const gap = chain.event('machineOffline', { previousHash: 'f'.repeat(64) });
      chain.head = eventHash(gap);
      const fork = chain.event('machineIdle', { previousHash: eventHash(first) });
      chain.head = eventHash(fork);
      const after = chain.next('machineIdle');
      const events = [first, second, gap, fork, after];
      const response = form === 'list' ? await chain.sendBatch(ctx(), events) : await chain.sendSignedBatch(ctx(), events);
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json<TTraceEventBatchResult>();
      expect(answer.findings).toBe(2);
      expect(answer.events.map((receipt) => receipt.chainFinding)).toEqual([null, null, 'gap', 'fork', null]);
      expect((await eventsOf(chain.world.deviceId)).map((row) => [row.sequence, row.chain_finding])).toEqual([
        [1, null],
        [2, null],
        [3, 'gap'],
        [4, 'fork'],
        [5, null],
      ]);
      expect(await chainBreaks(ctx(), chain.world.deviceId)).toEqual([
        {
          eventId: gap.eventId,
          finding: 'gap',
          previousHash: 'f'.repeat(64),
          expectedPreviousHash: eventHash(second),
        },
        { eventId: fork.eventId, finding: 'fork', previousHash: eventHash(first), expectedPreviousHash: eventHash(gap) },
      ]);
      // the export verifies offline, with exactly those breaks
      const exported = await ctx().call('GET', `/ui/event/export?deviceId=${chain.world.deviceId}`, {
        token: await ctx().adminToken(),
      });
      const report = await verifyHistory(exported.json());
      expect(report.problems).toEqual([]);
      expect(report.breaks.map((found) => [found.sequence, found.recorded])).toEqual([
        [3, 'gap'],
        [4, 'fork'],
      ]);
    },
  );

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

  describe('batch-signed form', () => {
    type Event = ReturnType<MachineChain['next']>;

    const storedOf = (deviceId: string) =>
      db()
        .selectFrom('trace_events')
        .select(['event_id', 'sequence', 'previous_hash', 'event_hash', 'chain_finding', 'proof'])
        .where('device_id', '=', deviceId)
        .orderBy('sequence')
        .execute();

    const batchesOf = (deviceId: string) =>
      db().selectFrom('trace_event_batches').selectAll().where('device_id', '=', deviceId).orderBy('received_at').execute();

    const sendSigned = async (chain: MachineChain, events: Event[]) => {
      const response = await chain.sendSignedBatch(ctx(), events);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<TTraceEventBatchResult>();
    };

    const exportOf = async (deviceId: string) => {
      const response = await ctx().call('GET', `/ui/event/export?deviceId=${deviceId}`, { token: await ctx().adminToken() });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<TTraceHistory>();
    };

    const receipt = (event: Event, chainFinding: 'gap' | 'fork' | null = null) => ({
      eventId: event.eventId,
      eventHash: eventHash(event),
      chainFinding,
    });

    it('verifies one signature, stores the envelope once and each event with its place in it, repeats once', async () => {
      const chain = await ownMachine();
      const [a, b, c] = [
        chain.next('machineIdle'),
        chain.next('machineOffline', { data: { note: 'x' } }),
        chain.next('machineIdle'),
      ];
      const envelope = await chain.signedBatch([a, b, a, c]);
      const response = await ctx().call('POST', STP_EVENT_PATH, { body: envelope });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        received: 4,
        stored: 3,
        repeated: 1,
        findings: 0,
        events: [receipt(a), receipt(b), receipt(a), receipt(c)],
      });
      const batch = batchIdOf(envelope);
      const stored = await storedOf(chain.world.deviceId);
      expect(stored.map((row) => [row.event_id, row.sequence, row.previous_hash, row.event_hash])).toEqual([
        [a.eventId, 1, null, eventHash(a)],
        [b.eventId, 2, eventHash(a), eventHash(b)],
        [c.eventId, 3, eventHash(b), eventHash(c)],
      ]);
      expect(stored.map((row) => JSON.parse(row.proof) as unknown)).toEqual([
        { format: 'stp-batch', batch, index: 0 },
        { format: 'stp-batch', batch, index: 1 },
        { format: 'stp-batch', batch, index: 3 },
      ]);
      const batches = await batchesOf(chain.world.deviceId);
      expect(batches).toHaveLength(1);
      expect(batches[0]).toMatchObject({ batch_id: batch, device_id: chain.world.deviceId });
      expect(JSON.parse(batches[0]!.envelope)).toEqual(envelope);
      expect(
        await db()
          .selectFrom('audit_events')
          .select('id')
          .where('event_type', '=', 'machineIdle')
          .where('subject', '=', chain.world.deviceId)
          .execute(),
      ).toHaveLength(2);

      // a replayed envelope is refused; a new batch repeating stored events stores only the new one
      expectToken(await ctx().call('POST', STP_EVENT_PATH, { body: envelope }), 401, 'stpNonceReplayed');
      const d = chain.next('machineIdle');
      expect(await sendSigned(chain, [b, d, c])).toEqual({
        received: 3,
        stored: 1,
        repeated: 2,
        findings: 0,
        events: [receipt(b), receipt(d), receipt(c)],
      });
      expect((await storedOf(chain.world.deviceId)).map((row) => row.sequence)).toEqual([1, 2, 3, 4]);
      expect(await batchesOf(chain.world.deviceId)).toHaveLength(2);
      // the other forms go on from the batch's head
      expect((await chain.sendStp(ctx(), chain.next('machineIdle'))).json()).toMatchObject({ chainFinding: null });
      const list = await chain.sendBatch(ctx(), [chain.next('machineIdle')]);
      expect(list.json<TTraceEventBatchResult>().events[0]!.chainFinding).toBeNull();
    });

    it('refuses a batch whose events were changed after signing, or signed by another key, and stores nothing', async () => {
      const chain = await ownMachine();
      const other = await ownMachine();
      const events = [chain.next('machineIdle'), chain.next('machineIdle', { data: { count: '1' } })];
      const tampered = await chain.signedBatch(events);
      (tampered.body.batch as Record<string, unknown>[])[1]!.data = { count: '2' };
      expectToken(await ctx().call('POST', STP_EVENT_PATH, { body: tampered }), 401, 'stpSignatureInvalid');
      const dropped = await chain.signedBatch(events);
      (dropped.body.batch as unknown[]).pop();
      expectToken(await ctx().call('POST', STP_EVENT_PATH, { body: dropped }), 401, 'stpSignatureInvalid');
      // the other machine's key over this machine's events
      const foreignKey = await stpEnvelope(
        other.world.machine,
        chain.world.deviceId,
        STP_EVENT_PATH,
        EventChain.batchBody(events),
      );
      expectToken(await ctx().call('POST', STP_EVENT_PATH, { body: foreignKey }), 401, 'stpSignatureInvalid');
      expect(await storedOf(chain.world.deviceId)).toEqual([]);
      expect(await batchesOf(chain.world.deviceId)).toEqual([]);
      // the untouched batch is taken
      expect(await sendSigned(chain, events)).toMatchObject({ stored: 2, findings: 0 });
    });

    it('refuses the whole batch for one bad event, naming it, and stores nothing of it', async () => {
      const { chain, own, foreign } = await machineWithForeignAuthorization();
      const refused = async (events: Event[], status: number, token: string, field: string) =>
        expectToken(await chain.sendSignedBatch(ctx(), events), status, token, field);

      await refused(
        [
          chain.event('jobStarted', { authorizationId: own, jobId: 'j1' }),
          chain.event('jobStarted', { authorizationId: foreign, jobId: 'j2' }),
        ],
        420,
        'authorizationNotAvailable',
        'body.batch[1].authorizationId',
      );
      const idle = chain.event('machineIdle');
      await refused([idle, { ...idle, kind: 'machineOffline' }], 420, 'traceEventIdNotValid', 'body.batch[1].eventId');
      await refused([idle, { ...idle, eventId: 'not-a-uuid' }], 420, 'traceEventIdNotValid', 'body.batch[1].eventId');
      await refused([idle, { ...idle, eventId: randomUUID(), quantity: -1 }], 400, 'malformedRequest', 'body.batch[1].quantity');
      await refused([chain.event('jobEnded', { authorizationId: own })], 400, 'malformedRequest', 'body.batch[0].jobId');
      expect(await storedOf(chain.world.deviceId)).toEqual([]);
      expect(await batchesOf(chain.world.deviceId)).toEqual([]);
      expect(await db().selectFrom('builds').select('id').where('authorization_id', '=', own).execute()).toEqual([]);

      // an eventId another batch already stored with other content
      const first = chain.next('machineIdle');
      await sendSigned(chain, [first]);
      await refused(
        [chain.next('machineIdle'), { ...first, kind: 'machineOffline' }],
        420,
        'traceEventIdNotValid',
        'body.batch[1].eventId',
      );
      expect(await storedOf(chain.world.deviceId)).toHaveLength(1);

      // the list's limits
      expectToken(await stpCall(ctx(), chain.world, STP_EVENT_PATH, { batch: [] }), 400, 'malformedRequest', 'body.batch');
      const over = { batch: Array.from({ length: TRACE_EVENT_BATCH_MAX + 1 }, () => EventChain.body(idle)) };
      expectToken(await stpCall(ctx(), chain.world, STP_EVENT_PATH, over), 400, 'malformedRequest', 'body.batch');
      expectToken(await stpCall(ctx(), chain.world, STP_EVENT_PATH, { batch: ['x'] }), 400, 'malformedRequest', 'body.batch[0]');
    });

    it('exports each batch envelope once, verifies offline, and any changed event of a batch fails', async () => {
      const chain = await ownMachine();
      const { authorizationId } = {
        authorizationId: await grantAuthorization(ctx(), await addOrder(ctx(), policyFor(world)), chain.world.deviceId, 2),
      };
      expect((await chain.sendStp(ctx(), chain.next('licenceReceivedByMachine', { authorizationId }))).statusCode).toBe(200);
      const firstBatch = [
        chain.next('jobStarted', { authorizationId, jobId: 'a', quantity: 2 }),
        chain.next('jobEnded', { authorizationId, jobId: 'a' }),
      ];
      await sendSigned(chain, firstBatch);
      expect((await chain.sendXml(ctx(), chain.xml(chain.next('machineIdle')))).statusCode).toBe(200);
      const secondBatch = [chain.next('machineIdle'), chain.next('machineOffline', { data: { reason: 'night' } })];
      await sendSigned(chain, secondBatch);

      const history = await exportOf(chain.world.deviceId);
      expect(history.events.map((event) => event.proof.format)).toEqual([
        'stp',
        'stp-batch',
        'stp-batch',
        'xml',
        'stp-batch',
        'stp-batch',
      ]);
      expect(history.batches).toHaveLength(2);
      const [one, two] = history.batches;
      expect(
        history.events.map((event) => (event.proof.format === 'stp-batch' ? [event.proof.batch, event.proof.index] : null)),
      ).toEqual([null, [one!.batchId, 0], [one!.batchId, 1], null, [two!.batchId, 0], [two!.batchId, 1]]);
      expect(await verifyHistory(history)).toMatchObject({ events: 6, breaks: [], problems: [] });
      const pinned = await verifyHistory(history, { certificatePem: chain.world.machine.apl.signingCertificate });
      expect(pinned.problems).toEqual([]);

      // one event's content changed in its batch: the batch's signature fails for every event of it
      const changed = structuredClone(history);
      (changed.batches[1]!.envelope.body.batch as Record<string, unknown>[])[1]!.data = { reason: 'day' };
      const report = await verifyHistory(changed);
      expect(report.problems).toEqual([
        expect.stringMatching(/^event 5 .*signature does not verify/),
        expect.stringMatching(/^event 6 .*signature does not verify/),
      ]);
      // an event pointed at another place of its batch, or its hash changed in the file
      const moved = structuredClone(history);
      const proof = moved.events[4]!.proof;
      if (proof.format === 'stp-batch') proof.index = 1;
      expect((await verifyHistory(moved)).problems).toEqual(
        expect.arrayContaining([expect.stringContaining('event 5'), expect.stringContaining('the signed eventId')]),
      );
      const rehashed = structuredClone(history);
      rehashed.events[1]!.eventHash = 'a'.repeat(64);
      expect((await verifyHistory(rehashed)).problems).toEqual(
        expect.arrayContaining([expect.stringContaining('event 2'), expect.stringContaining('hashes to')]),
      );
      // the envelope missing from the file, or filed under another id
      expect((await verifyHistory({ ...history, batches: [two] })).problems).toHaveLength(2);
      expect((await verifyHistory({ ...history, batches: [{ ...one!, batchId: two!.batchId }, two] })).problems).not.toEqual([]);
      // another machine's certificate verifies none of it
      const other = await ownMachine();
      const foreign = await verifyHistory(history, { certificatePem: other.world.machine.apl.signingCertificate });
      expect(foreign.problems).toHaveLength(6);
    });

    it('takes an exported history with batches back as an upload, and refuses a tampered one', async () => {
      const chain = await ownMachine();
      const events = [chain.next('machineIdle'), chain.next('machineIdle'), chain.next('machineOffline')];
      await sendSigned(chain, events);
      const history = await exportOf(chain.world.deviceId);
      const upload = async (content: unknown) =>
        uploadForm(ctx(), '/ui/event/upload', await ctx().adminToken(), {
          file: { filename: 'events.json', content: Buffer.from(JSON.stringify(content)), contentType: 'application/json' },
        });
      const again = await upload(history);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json<TTraceEventUploadResult>()).toEqual({ received: 3, stored: 0, repeated: 3, findings: 0 });
      expect(await batchesOf(chain.world.deviceId)).toHaveLength(1);

      const tampered = structuredClone(history);
      (tampered.batches[0]!.envelope.body.batch as Record<string, unknown>[])[2]!.kind = 'machineIdle';
      expectToken(await upload(tampered), 401, 'traceEventSignatureInvalid', 'file.events[0]');
      expectToken(await upload({ events: history.events }), 400, 'traceEventMalformed', 'file.events[0].proof.batch');
      const outOfRange = structuredClone(history);
      const proof = outOfRange.events[2]!.proof;
      if (proof.format === 'stp-batch') proof.index = 7;
      expectToken(await upload(outOfRange), 400, 'traceEventMalformed', 'file.events[2]');
      expect(await storedOf(chain.world.deviceId)).toHaveLength(3);
    });
  });
});
