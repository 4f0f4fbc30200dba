import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  TDsiEntry,
  TManageInstance,
  TOrder,
  TOutboxMessage,
  TPage,
  TQueuedEvent,
  TTraceEventEntry,
  TTraceInstance,
} from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { JobRunner } from '../src/jobs/job-runner.js';
import { JobsService } from '../src/jobs/jobs.service.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { revokeAfterLateDelivery } from '../src/modules/licensing/delegation.js';
import { outboxDeliveryJob } from '../src/modules/outbox/outbox-delivery.job.js';
import { OUTBOX_DELIVER } from '../src/modules/outbox/outbox.repository.js';
import { signApl } from '../src/modules/registrations/apl-checks.js';
import { canonicalEvent, eventHash } from '../src/modules/events/trace-event-format.js';
import type { ManageInstanceRow } from '../src/db/schema-licensing.js';
import {
  addOrder,
  authorize,
  policyFor,
  registerApprovedMachine,
  uploadDesignFile,
  type LicensingWorld,
} from './helpers/licensing-fixtures.js';
import { createPackage, testMachine } from './helpers/packages-fixtures.js';
import { joinNetwork, LOOPBACK_PEERS, startPeer, type PeerProcess } from './helpers/peer-network.js';
import { freePort } from './helpers/server-process.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';
import { MachineChain } from './helpers/trace-fixtures.js';
import { peerIdentity, testRoot } from './helpers/test-pki.js';

/** This suite's app (the upstream Manage) listens here, one database at a time. */
const localPort = await freePort();
const localUrl = `http://127.0.0.1:${localPort}`;

let root: DevelopmentCa;
/** The downstream Manage instance: a server process of its own (SQLite). */
let downstream: PeerProcess;

beforeAll(async () => {
  root = await testRoot('Outbox Network Root');
  downstream = await startPeer('Downstream Site', { JOBS_POLL_MS: '200' });
  await joinNetwork(downstream.call, root);
}, 120_000);

afterAll(async () => {
  await downstream?.stop();
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Runs the due delivery jobs of the app under test (its own runner is not started). */
async function deliver(ctx: TestApp, retryBaseMs = 60_000, maxAttempts = 20): Promise<void> {
  const { database, credentials } = ctx.app.services;
  const runner = new JobRunner(database, new JobsService(database), { ...ctx.config.jobs, log: quiet });
  runner.register(
    OUTBOX_DELIVER,
    outboxDeliveryJob(
      database,
      credentials,
      ctx.config.peers,
      { ...ctx.config.outbox, retryBaseMs, retryMaxMs: retryBaseMs, maxAttempts },
      { authorization: revokeAfterLateDelivery(database.dialect) },
    ),
  );
  await runner.runDue();
}

async function downstreamOrders(): Promise<TOrder[]> {
  const answer = await downstream.call('GET', '/ui/order/list?numberOfItems=100');
  expect(answer.statusCode, answer.body).toBe(200);
  return (answer.json() as TPage<TOrder>).data;
}

describeEachDatabase(
  'outbox and the licence chain',
  (ctx) => {
    let admin: string;
    let user: string;
    let world: LicensingWorld;
    /** The downstream instance as the app under test holds it, and the app as the downstream holds it. */
    let ours: TManageInstance;
    let theirs: TManageInstance;
    const call = (method: 'GET' | 'POST', url: string, body?: unknown, token = admin) =>
      ctx().call(method, url, { token, ...(body !== undefined ? { body } : {}) });
    const outboxRows = () => ctx().app.services.database.db.selectFrom('outbox').selectAll().orderBy('id').execute();

    beforeAll(async () => {
      admin = await ctx().adminToken();
      user = (await ctx().createUser()).token;
      await joinNetwork((method, url, options = {}) => ctx().call(method, url, { token: admin, ...options }), root);
      await ctx().app.listen({ port: localPort, host: '127.0.0.1' });
      const pkg = await createPackage(ctx());
      await uploadDesignFile(ctx(), pkg.dsiId, randomBytes(4096), false);
      const built = await call('POST', '/ui/package/build', { dsiId: pkg.dsiId });
      expect(built.statusCode, built.body).toBe(200);
      const signing = (await ctx().app.services.credentials.identity('signing')).certificatePem;
      world = {
        revision: built.json<TDsiEntry>(),
        licenseeSerial: describeCertificate(signing).serialNumber,
      } as LicensingWorld;
      const added = await call('POST', '/ui/manage/add', { manageUrl: downstream.url });
      expect(added.statusCode, added.body).toBe(200);
      ours = added.json<TManageInstance>();
      const list = (await downstream.call('GET', '/ui/manage/list?registrationType=upStreamManage')).json() as {
        data: TManageInstance[];
      };
      theirs = list.data.find((entry) => entry.registrationNonce === ours.registrationNonce)!;
      const approved = await downstream.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } });
      expect(approved.statusCode, approved.body).toBe(200);
    }, 120_000);

    describe('access', () => {
      it('GET /ui/admin/outbox needs a session and ADMIN; /apl/peer/message needs a registered signer', async () => {
        expect((await ctx().call('GET', '/ui/admin/outbox')).statusCode).toBe(401);
        expectToken(await call('GET', '/ui/admin/outbox', undefined, user), 403, 'actionNotAllowed');
        const anonymous = await ctx().call('POST', '/apl/peer/message', {
          body: { aplType: 'downstreamManage', apl: {}, signature: 'x' },
        });
        expectToken(anonymous, 420, 'registrationExchangeInvalidApl');
        expectToken(
          await ctx().call('POST', '/apl/peer/message', { body: { aplType: 'enforce', apl: {}, signature: 'x' } }),
          420,
          'registrationExchangeInvalidApl',
          'aplType',
        );
      });
    });

    describe('the licence chain', () => {
      it('cannotSendAuthorizationsToUpstreamManageInstances: the downstream cannot authorize towards its upstream', async () => {
        const answer = await downstream.call('POST', '/ui/authorization/authorize', {
          body: { orderId: randomUUID(), manageId: theirs.manageId, quantity: 1 },
        });
        expect(answer.statusCode, answer.body).toBe(418);
        expect(answer.body).toContain('cannotSendAuthorizationsToUpstreamManageInstances');
      });

      it('delivers an authorization that becomes an order downstream, once, narrowed as it says', async () => {
        const orderId = await addOrder(
          ctx(),
          policyFor(world, { quantity: 10, serialization: { type: 'Dec', prefix: 'P-', start: 100, end: 199 } }),
        );
        const expiration = Date.now() + 5 * 86_400_000;
        const authorizationId = await authorize(ctx(), { orderId, manageId: ours.manageId, quantity: 3, expiration });
        const sent = await call('POST', '/ui/authorization/send', { orderId, authorizationId });
        expect(sent.statusCode, sent.body).toBe(200);
        await deliver(ctx());
        const message = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([message.state, message.attempts, message.last_error]).toEqual(['delivered', 1, null]);

        const order = (await downstreamOrders()).find((entry) => entry.orderIdentity.authorizationId === authorizationId)!;
        expect(order).toMatchObject({ quantity: 3, source: 'upstream', revoked: false });
        expect(Date.parse(order.expiration!)).toBe(expiration);

        // the downstream narrows further with the same rules: no more than the authorization gave
        const machine = await testMachine(root);
        const registered = await downstream.call('POST', '/apl/registration/add', { body: await machine.request() });
        expect(registered.statusCode, registered.body).toBe(200);
        const deviceId = (registered.json() as { deviceId: string }).deviceId;
        expect((await downstream.call('POST', '/ui/device/approve', { body: { id: deviceId, approve: true } })).statusCode).toBe(
          200,
        );
        const tooMany = await downstream.call('POST', '/ui/authorization/authorize', {
          body: { orderId: order.orderIdentity.orderId, deviceId, quantity: 4 },
        });
        expect(tooMany.statusCode, tooMany.body).toBe(418);
        // the order holds the authorization's quantity and its serial numbers only
        expect((tooMany.json() as { data: { errorToken: string }[] }).data.map((e) => e.errorToken)).toEqual([
          'quantityExceedsAllottedAmount',
          'serializationDoesNotHaveEnoughNumbersForQuantity',
        ]);
        const later = await downstream.call('POST', '/ui/authorization/authorize', {
          body: {
            orderId: order.orderIdentity.orderId,
            deviceId,
            quantity: 1,
            expiration: Date.now() + 10 * 86_400_000,
          },
        });
        expect(later.statusCode, later.body).toBe(420);
        expect(later.body).toContain('expirationDateIsAfterParentExpirationDate');
        const local = await downstream.call('POST', '/ui/authorization/authorize', {
          body: { orderId: order.orderIdentity.orderId, deviceId, quantity: 2 },
        });
        expect(local.statusCode, local.body).toBe(200);
        const localId = (local.json() as { authorizationId: string }).authorizationId;

        // revoking upstream travels down: the order and its machine authorization are revoked there
        const revoked = await call('POST', '/ui/authorization/revoke', { orderId, authorizationId });
        expect(revoked.statusCode, revoked.body).toBe(200);
        await deliver(ctx());
        const revocation = (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'revocation')!;
        expect(revocation.state).toBe('delivered');
        const after = (await downstreamOrders()).find((entry) => entry.orderIdentity.authorizationId === authorizationId)!;
        expect(after.revoked).toBe(true);
        const fetched = await downstream.call('GET', `/ui/order/fetch?orderId=${order.orderIdentity.orderId}`);
        const detail = fetched.json() as {
          authorizations: { data: { id: string; state: string }[] };
          history: { eventType: string }[];
        };
        expect(detail.authorizations.data.find((entry) => entry.id === localId)?.state).toBe('revoked');
        expect(detail.history.map((entry) => entry.eventType)).toEqual(
          expect.arrayContaining(['licenceReceived', 'orderRevoked', 'licenceRevoked']),
        );
        // recorded upstream too
        const upstream = await call('GET', `/ui/order/fetch?orderId=${orderId}`);
        const revokedHere = (
          upstream.json() as { history: { eventType: string; details: Record<string, unknown> }[] }
        ).history.find((entry) => entry.eventType === 'licenceRevoked');
        expect(revokedHere?.details).toMatchObject({ authorizationId, downstreamRevocation: revocation.message_id });
      });

      it('retries an unreachable peer with back-off, keeping attempts and the last error', async () => {
        const db = ctx().app.services.database.db;
        const orderId = await addOrder(ctx(), policyFor(world));
        const authorizationId = await authorize(ctx(), { orderId, manageId: ours.manageId, quantity: 1 });
        expect((await call('POST', '/ui/authorization/send', { orderId, authorizationId })).statusCode).toBe(200);
        const realUrl = ours.manageURL;
        await db
          .updateTable('manage_instances')
          .set({ manage_url: `http://127.0.0.1:${await freePort()}` })
          .where('id', '=', ours.manageId)
          .execute();
        try {
          const before = Date.now();
          await deliver(ctx());
          const failed = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
          expect(failed.state).toBe('pending');
          expect(failed.attempts).toBe(1);
          expect(failed.last_error).toContain('registrationExchangeCommunicationFailed');
          expect(Date.parse(failed.next_attempt_at)).toBeGreaterThanOrEqual(before);
          const listed = await call('GET', '/ui/admin/outbox?state=pending');
          expect(listed.statusCode).toBe(200);
          expect(
            (listed.json() as TPage<TOutboxMessage>).data.find((entry) => entry.subjectId === authorizationId),
          ).toMatchObject({
            kind: 'authorization',
            state: 'pending',
            attempts: 1,
            targetId: ours.manageId,
          });
        } finally {
          await db.updateTable('manage_instances').set({ manage_url: realUrl }).where('id', '=', ours.manageId).execute();
        }
        // the next attempt, due after the back-off (brought forward here), reaches it
        await db
          .updateTable('jobs')
          .set({ run_at: new Date().toISOString() })
          .where('kind', '=', OUTBOX_DELIVER)
          .where('state', '=', 'pending')
          .execute();
        await deliver(ctx());
        const delivered = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([delivered.state, delivered.attempts, delivered.last_error]).toEqual(['delivered', 2, null]);
        expect(
          (await downstreamOrders()).filter((entry) => entry.orderIdentity.authorizationId === authorizationId),
        ).toHaveLength(1);
      });
    });

    describe('giving up', () => {
      it('marks a message failed after its last attempt; revoking its authorization then sends a revocation', async () => {
        const db = ctx().app.services.database.db;
        const orderId = await addOrder(ctx(), policyFor(world));
        const authorizationId = await authorize(ctx(), { orderId, manageId: ours.manageId, quantity: 1 });
        expect((await call('POST', '/ui/authorization/send', { orderId, authorizationId })).statusCode).toBe(200);
        const realUrl = ours.manageURL;
        await db
          .updateTable('manage_instances')
          .set({ manage_url: `http://127.0.0.1:${await freePort()}` })
          .where('id', '=', ours.manageId)
          .execute();
        try {
          await deliver(ctx(), 60_000, 1);
        } finally {
          await db.updateTable('manage_instances').set({ manage_url: realUrl }).where('id', '=', ours.manageId).execute();
        }
        const failed = (await call('GET', '/ui/admin/outbox?state=failed')).json<TPage<TOutboxMessage>>().data;
        expect(failed.find((entry) => entry.subjectId === authorizationId)).toMatchObject({ state: 'failed', attempts: 1 });
        expect((await call('POST', '/ui/authorization/revoke', { orderId, authorizationId })).statusCode).toBe(200);
        await deliver(ctx());
        const revocation = (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'revocation')!;
        expect(revocation.state).toBe('delivered');
        // it never arrived: the revocation changes nothing there
        expect((await downstreamOrders()).some((entry) => entry.orderIdentity.authorizationId === authorizationId)).toBe(false);
      });
    });

    describe('the event queue', () => {
      let chain: MachineChain;
      let traceId: string;
      const queued = async () => (await call('GET', '/ui/queue/list?numberOfItems=100')).json<TPage<TQueuedEvent>>().data;
      const report = async () => {
        const event = chain.next('machineIdle');
        const answer = await chain.sendXml(ctx(), chain.xml(event));
        expect(answer.statusCode, answer.body).toBe(200);
        return event.eventId;
      };
      const traceEvents = async () =>
        ((await downstream.call('GET', '/ui/event/list?numberOfItems=100')).json() as TPage<TTraceEventEntry>).data;

      beforeAll(async () => {
        chain = new MachineChain(await registerApprovedMachine(ctx(), root));
        const added = await call('POST', '/ui/trace/add', { traceUrl: downstream.url });
        expect(added.statusCode, added.body).toBe(200);
        traceId = added.json<TTraceInstance>().id;
        const theirList = (await downstream.call('GET', '/ui/trace/list?numberOfItems=100')).json() as TPage<TTraceInstance>;
        const theirs = theirList.data.find(
          (entry) => !entry.initiator && entry.traceURL === localUrl && entry.registrationState === 'Pending',
        )!;
        const approved = await downstream.call('POST', '/ui/trace/approve', { body: { id: theirs.id, approve: true } });
        expect(approved.statusCode, approved.body).toBe(200);
      });

      it('needs a session; send, delete and changing the configuration need ADMIN', async () => {
        const id = randomUUID();
        for (const [method, url] of [
          ['GET', '/ui/queue/list'],
          ['GET', `/ui/queue/download?traceEventId=${id}`],
          ['GET', '/ui/admin/event'],
        ] as const) {
          expect((await ctx().call(method, url)).statusCode, url).toBe(401);
        }
        for (const url of ['/ui/queue/send', '/ui/queue/delete']) {
          expect((await ctx().call('POST', url, { body: { eventId: id } })).statusCode, url).toBe(401);
          expectToken(await call('POST', url, { eventId: id }, user), 403, 'actionNotAllowed');
        }
        expectToken(await call('POST', '/ui/admin/event', { enabled: false }, user), 403, 'actionNotAllowed');
        expect((await call('GET', '/ui/queue/list', undefined, user)).statusCode).toBe(200);
        expect((await call('GET', '/ui/admin/event', undefined, user)).statusCode).toBe(200);
      });

      it('admin/event: forwarding on for a week by default; null fields leave values unchanged', async () => {
        expect((await call('GET', '/ui/admin/event')).json()).toEqual({ enabled: true, timeout: 604800 });
        expect((await call('POST', '/ui/admin/event', { enabled: false, timeout: null })).json()).toEqual({
          enabled: false,
          timeout: 604800,
        });
        expect((await call('POST', '/ui/admin/event', { timeout: 3600 })).json()).toEqual({ enabled: false, timeout: 3600 });
        expectToken(await call('POST', '/ui/admin/event', { timeout: 0 }), 400, 'malformedRequest');
        // forwarding off: a new event is not queued
        const unqueued = await report();
        expect((await queued()).map((entry) => entry.eventId)).not.toContain(unqueued);
        expect((await call('POST', '/ui/admin/event', { enabled: true })).json()).toEqual({ enabled: true, timeout: 3600 });
      });

      it('queues an event for the Trace instance until it acknowledged it; the Trace stores it like its own', async () => {
        const eventId = await report();
        const entry = (await queued()).find((item) => item.eventId === eventId)!;
        expect(entry).toMatchObject({
          kind: 'machineIdle',
          deviceId: chain.world.deviceId,
          state: 'pending',
          targets: 1,
          delivered: 0,
        });
        const message = (await outboxRows()).find((row) => row.subject_id === eventId)!;
        expect([message.kind, message.target_id]).toEqual(['event', traceId]);
        expect(Date.parse(message.expires_at!) - Date.parse(message.created_at)).toBe(3600 * 1000);
        const xml = await call('GET', `/ui/queue/download?traceEventId=${eventId}`);
        expect(xml.statusCode).toBe(200);
        expect(xml.headers['content-type']).toContain('application/xml');
        expect(xml.body).toContain(`<EventId>${eventId}</EventId>`);
        expect(xml.body).toContain('Signature');

        await deliver(ctx());
        expect((await queued()).map((item) => item.eventId)).not.toContain(eventId);
        const stored = (await traceEvents()).find((item) => item.eventId === eventId)!;
        expect(stored).toMatchObject({ source: 'peer', event: { kind: 'machineIdle', deviceId: chain.world.deviceId } });
        expectToken(await call('POST', '/ui/queue/send', { eventId }), 420, 'traceEventIdNotValid');
      });

      it('queue/send tries a waiting event now; queue/delete takes it out of the queue', async () => {
        const db = ctx().app.services.database.db;
        const realUrl = downstream.url;
        await db
          .updateTable('manage_instances')
          .set({ manage_url: `http://127.0.0.1:${await freePort()}` })
          .where('id', '=', traceId)
          .execute();
        const waiting = await report();
        const dropped = await report();
        await deliver(ctx());
        const entry = (await queued()).find((item) => item.eventId === waiting)!;
        expect(entry).toMatchObject({ state: 'pending', attempts: 1, delivered: 0 });
        expect(entry.lastError).toContain('registrationExchangeCommunicationFailed');
        await db.updateTable('manage_instances').set({ manage_url: realUrl }).where('id', '=', traceId).execute();

        expect((await call('POST', '/ui/queue/delete', { eventId: dropped })).statusCode).toBe(200);
        expectToken(await call('POST', '/ui/queue/delete', { eventId: dropped }), 420, 'traceEventIdNotValid');
        expect((await call('POST', '/ui/queue/send', { eventId: waiting })).statusCode).toBe(200);
        await deliver(ctx()); // only the send-now job is due: the back-off of the first one runs a minute
        expect((await queued()).map((item) => item.eventId)).not.toContain(waiting);
        const ids = (await traceEvents()).map((item) => item.eventId);
        expect(ids).toContain(waiting);
        expect(ids).not.toContain(dropped);
        expectToken(await call('GET', `/ui/queue/download?traceEventId=${randomUUID()}`), 420, 'traceEventIdNotValid');
        expectToken(await call('POST', '/ui/queue/send', { eventId: 'nope' }), 420, 'traceEventIdNotValid');
      });
    });

    describe('a Trace instance receiving forwarded events', () => {
      it('stores them like its own (once, chained, source peer) while traceEnabled, else traceFuncitionalityNotEnabled', async () => {
        const { database, events, settings } = ctx().app.services;
        const peerRow = { id: randomUUID(), manage_site_name: 'Reporting Site' } as ManageInstanceRow;
        const deviceId = randomUUID();
        const body = {
          eventId: randomUUID(),
          kind: 'machineIdle' as const,
          occurredAt: new Date().toISOString(),
          authorizationId: null,
          jobId: null,
          quantity: null,
          previousHash: null,
          data: { note: 'forwarded' },
        };
        const forwarded = {
          deviceId,
          body,
          eventHash: eventHash(canonicalEvent(body, deviceId)),
          orderId: null,
          dsiId: null,
          proof: { format: 'xml', xml: '<TraceEvent/>' },
          receivedAt: new Date().toISOString(),
        };
        const receive = (input: unknown) =>
          database.transaction((trx) => events.receiveForwarded(trx, peerRow, input, '127.0.0.1', new Date().toISOString()));
        await settings.set('traceEnabled', 'false');
        await expect(receive(forwarded)).rejects.toMatchObject({ token: 'traceFuncitionalityNotEnabled' });
        await settings.set('traceEnabled', 'true');
        await expect(receive({ ...forwarded, eventHash: 'a'.repeat(64) })).rejects.toMatchObject({
          token: 'registrationExchangeInvalidApl',
          field: 'apl.body.eventHash',
        });
        await receive(forwarded);
        await receive(forwarded); // the same event again: nothing more
        const rows = await database.db.selectFrom('trace_events').selectAll().where('device_id', '=', deviceId).execute();
        expect(rows.map((row) => [row.event_id, row.source, row.sequence, row.chain_finding])).toEqual([
          [body.eventId, 'peer', 1, null],
        ]);
        const other = { ...body, data: { note: 'changed' } };
        await expect(
          receive({ ...forwarded, body: other, eventHash: eventHash(canonicalEvent(other, deviceId)) }),
        ).rejects.toMatchObject({ token: 'traceEventIdNotValid' });
      });
    });

    describe('POST /apl/peer/message', () => {
      /** A message signed by this app's key under the registration, as the delivery job signs it. */
      const signed = async (apl: Record<string, unknown>) =>
        signApl(ctx().app.services.credentials, 'upstreamManage', {
          registrationNonce: ours.registrationNonce,
          messageId: randomUUID(),
          kind: 'revocation',
          timestamp: new Date().toISOString(),
          nonce: randomUUID(),
          body: { authorizationId: randomUUID(), reason: 'test' },
          ...apl,
        });
      const post = async (message: unknown) => {
        const response = await fetch(`${downstream.url}/apl/peer/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(message),
        });
        const body = await response.text();
        return { statusCode: response.status, body, json: () => JSON.parse(body) as Record<string, string> };
      };

      it('acknowledges a message id seen twice as a duplicate and refuses a replayed nonce', async () => {
        const messageId = randomUUID();
        const first = await post(await signed({ messageId }));
        expect(first.statusCode, first.body).toBe(200);
        expect(first.json()).toEqual({ messageId, received: 'applied' });
        const again = await post(await signed({ messageId }));
        expect(again.json()).toEqual({ messageId, received: 'duplicate' });
        const replay = await signed({});
        expect((await post(replay)).statusCode).toBe(200);
        const replayed = await post(replay);
        expect(replayed.statusCode).toBe(420);
        expect(replayed.json().errorToken).toBe('duplicateAplReceived');
      });

      it('refuses forged signatures, stale timestamps, unknown registrations and kinds the peer may not send', async () => {
        const message = await signed({});
        const forger = await peerIdentity(root, { purpose: 'signing' });
        const forged = {
          ...message,
          signature: await signDetachedJws(canonicalJson(message.apl), forger.privateKeyPem),
        };
        expect((await post(forged)).json().errorToken).toBe('registrationSignatureInvalid');
        const changed = { ...message, apl: { ...(message.apl as object), body: { authorizationId: randomUUID(), reason: 'x' } } };
        expect((await post(changed)).json().errorToken).toBe('registrationSignatureInvalid');
        const stale = await signed({ timestamp: new Date(Date.now() - 3_600_000).toISOString() });
        expect((await post(stale)).json()).toMatchObject({
          errorToken: 'registrationExchangeInvalidApl',
          field: 'apl.timestamp',
        });
        const unknown = await signed({ registrationNonce: randomUUID() });
        expect((await post(unknown)).json().errorToken).toBe('registrationNotPresent');
        // the downstream holds us as its upstream: we may not forward events to it
        const event = await signed({ kind: 'event' });
        expect((await post(event)).json()).toMatchObject({ errorToken: 'registrationExchangeInvalidApl', field: 'apl.kind' });
        // the other direction: the downstream may not send licences up
        const downward = await signApl(ctx().app.services.credentials, 'downstreamManage', message.apl as object as never);
        expect((await post(downward)).json().errorToken).toBe('registrationNotPresent');
      });
    });
  },
  { PEER_ALLOWED_HOSTS: LOOPBACK_PEERS, PUBLIC_URL: localUrl },
);
