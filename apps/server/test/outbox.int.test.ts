import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  TDsiEntry,
  TManageInstance,
  TOrder,
  TOutboxMessage,
  TPage,
  TQueuedEvent,
  TTraceEventEntry,
  TTraceHistory,
  TTraceInstance,
} from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { revokeAfterLateDelivery } from '../src/modules/licensing/delegation.js';
import { leaseOwnerName } from '../src/jobs/lease-owner.js';
import { OutboxDelivery } from '../src/modules/outbox/outbox-delivery.js';
import { outboxPurgeJob, PEER_NONCES_KEPT_MS } from '../src/modules/outbox/outbox-purge.job.js';
import { OutboxRepository } from '../src/modules/outbox/outbox.repository.js';
import { signApl } from '../src/modules/registrations/apl-checks.js';
import { batchIdOf, canonicalEvent, eventHash, SERVER_CHAIN_ID } from '../src/modules/events/trace-event-format.js';
import { verifyHistory } from '../src/modules/events/verify-history.js';
import type { ManageInstanceRow } from '../src/db/schema-licensing.js';
import {
  addOrder,
  authorize,
  policyFor,
  registerApprovedMachine,
  uploadDesignFile,
  type LicensingWorld,
} from './helpers/licensing-fixtures.js';
import { deliverOutbox } from './helpers/outbox-delivery.js';
import { createPackage, testMachine } from './helpers/packages-fixtures.js';
import { joinWithApp, LOOPBACK_PEERS, registerDownstream, suitePeer } from './helpers/peer-network.js';
import { freePort } from './helpers/server-process.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';
import { MachineChain } from './helpers/trace-fixtures.js';
import { peerIdentity } from './helpers/test-pki.js';

/** The downstream Manage instance: a server process of its own (SQLite); this suite's app is its upstream. */
const downstream = await suitePeer('Outbox Network Root', 'Downstream Site', { JOBS_POLL_MS: '200' });
const { localUrl } = downstream;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

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
    /** An authorization of a new order, sent to the downstream (queued, not delivered yet). */
    const sendAuthorization = async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      const authorizationId = await authorize(ctx(), { orderId, manageId: ours.manageId, quantity: 1 });
      const sent = await call('POST', '/ui/authorization/send', { orderId, authorizationId });
      expect(sent.statusCode, sent.body).toBe(200);
      return { orderId, authorizationId };
    };
    /** Runs `work` while the registration `id` points at a port nobody listens on. */
    const whileUnreachable = async (id: string, realUrl: string, work: () => Promise<void>) => {
      const db = ctx().app.services.database.db;
      await db
        .updateTable('manage_instances')
        .set({ manage_url: `http://127.0.0.1:${await freePort()}` })
        .where('id', '=', id)
        .execute();
      try {
        await work();
      } finally {
        await db.updateTable('manage_instances').set({ manage_url: realUrl }).where('id', '=', id).execute();
      }
    };

    beforeAll(async () => {
      ({ admin, user } = await joinWithApp(ctx(), downstream));
      const pkg = await createPackage(ctx());
      await uploadDesignFile(ctx(), pkg.dsiId, randomBytes(4096), false);
      const built = await call('POST', '/ui/package/build', { dsiId: pkg.dsiId });
      expect(built.statusCode, built.body).toBe(200);
      const signing = (await ctx().app.services.credentials.identity('signing')).certificatePem;
      world = {
        revision: built.json<TDsiEntry>(),
        licenseeSerial: describeCertificate(signing).serialNumber,
      } as LicensingWorld;
      ({ ours, theirs } = await registerDownstream(ctx(), admin, downstream));
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
        await deliverOutbox(ctx());
        const message = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([message.state, message.attempts, message.last_error]).toEqual(['delivered', 1, null]);

        const order = (await downstreamOrders()).find((entry) => entry.orderIdentity.authorizationId === authorizationId)!;
        expect(order).toMatchObject({ quantity: 3, source: 'upstream', revoked: false });
        expect(Date.parse(order.expiration!)).toBe(expiration);

        // the downstream narrows further with the same rules: no more than the authorization gave
        const { deviceId } = await registerApprovedMachine(downstream, downstream.root);
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
        await deliverOutbox(ctx());
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
          await deliverOutbox(ctx());
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
          .updateTable('outbox')
          .set({ next_attempt_at: new Date().toISOString() })
          .where('subject_id', '=', authorizationId)
          .where('state', '=', 'pending')
          .execute();
        await deliverOutbox(ctx());
        const delivered = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([delivered.state, delivered.attempts, delivered.last_error]).toEqual(['delivered', 2, null]);
        expect(
          (await downstreamOrders()).filter((entry) => entry.orderIdentity.authorizationId === authorizationId),
        ).toHaveLength(1);
      });
    });

    describe('a licence handed on further down', () => {
      it('an upstream revocation revokes the order it became, also when the downstream it was handed on to is no longer registered', async () => {
        // the downstream instance hands licences on to a downstream of its own: this app, registered there as such
        const added = await downstream.call('POST', '/ui/manage/add', {
          body: { registrationType: 'downStreamManage', manageUrl: localUrl },
        });
        expect(added.statusCode, added.body).toBe(200);
        const further = added.json() as TManageInstance;
        const asked = (await call('GET', '/ui/manage/list?registrationType=upStreamManage&numberOfItems=500')).json<
          TPage<TManageInstance>
        >();
        const here = asked.data.find((entry) => entry.registrationNonce === further.registrationNonce)!;
        expect((await call('POST', '/ui/manage/approve', { id: here.manageId, approve: true })).statusCode).toBe(200);

        const { orderId, authorizationId } = await sendAuthorization();
        await deliverOutbox(ctx());
        const there = (await downstreamOrders()).find((entry) => entry.orderIdentity.authorizationId === authorizationId)!;
        const onward = await downstream.call('POST', '/ui/authorization/authorize', {
          body: { orderId: there.orderIdentity.orderId, manageId: further.manageId, quantity: 1 },
        });
        expect(onward.statusCode, onward.body).toBe(200);
        const onwardId = (onward.json() as { authorizationId: string }).authorizationId;
        const sent = await downstream.call('POST', '/ui/authorization/send', {
          body: { orderId: there.orderIdentity.orderId, authorizationId: onwardId },
        });
        expect(sent.statusCode, sent.body).toBe(200);
        // its job runner delivers it here
        await expect
          .poll(
            async () =>
              (await call('GET', '/ui/order/list?numberOfItems=100'))
                .json<TPage<TOrder>>()
                .data.some((entry) => entry.orderIdentity.authorizationId === onwardId),
            { timeout: 20_000, interval: 200 },
          )
          .toBe(true);
        // then it deletes that registration: the authorization names it, so it stays there as Cancelled
        expect((await downstream.call('POST', '/ui/manage/delete', { body: { id: further.manageId } })).statusCode).toBe(200);

        // revoked here: the downstream still revokes the order (and its authorizations); nothing can reach the cancelled one
        expect((await call('POST', '/ui/authorization/revoke', { orderId, authorizationId })).statusCode).toBe(200);
        await deliverOutbox(ctx());
        const revocation = (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'revocation')!;
        expect([revocation.state, revocation.last_error]).toEqual(['delivered', null]);
        expect(
          (await downstreamOrders()).find((entry) => entry.orderIdentity.orderId === there.orderIdentity.orderId),
        ).toMatchObject({ revoked: true });
        const fetched = await downstream.call('GET', `/ui/order/fetch?orderId=${there.orderIdentity.orderId}`);
        const detail = fetched.json() as { authorizations: { data: { id: string; state: string }[] } };
        expect(detail.authorizations.data.find((entry) => entry.id === onwardId)?.state).toBe('revoked');
      });
    });

    describe('giving up', () => {
      it('marks a message failed after its last attempt; revoking its authorization then sends a revocation', async () => {
        const { orderId, authorizationId } = await sendAuthorization();
        await whileUnreachable(ours.manageId, ours.manageURL, () => deliverOutbox(ctx(), 60_000, 1));
        const failed = (await call('GET', '/ui/admin/outbox?state=failed')).json<TPage<TOutboxMessage>>().data;
        expect(failed.find((entry) => entry.subjectId === authorizationId)).toMatchObject({ state: 'failed', attempts: 1 });
        expect((await call('POST', '/ui/authorization/revoke', { orderId, authorizationId })).statusCode).toBe(200);
        await deliverOutbox(ctx());
        const revocation = (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'revocation')!;
        expect(revocation.state).toBe('delivered');
        // it never arrived: the revocation changes nothing there
        expect((await downstreamOrders()).some((entry) => entry.orderIdentity.authorizationId === authorizationId)).toBe(false);
      });

      it('a given-up authorization revoked since is not taken up again: its revocation went first, the licence is not revived downstream', async () => {
        const { orderId, authorizationId } = await sendAuthorization();
        await whileUnreachable(ours.manageId, ours.manageURL, () => deliverOutbox(ctx(), 60_000, 1));
        expect((await call('POST', '/ui/authorization/revoke', { orderId, authorizationId })).statusCode).toBe(200);
        await deliverOutbox(ctx());
        const failed = (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'authorization')!;
        expect(failed.state).toBe('failed');
        expectToken(
          await call('POST', '/ui/admin/outbox/retry', { messageId: failed.message_id }),
          420,
          'outboxMessageNotRetryable',
          'messageId',
        );
        await deliverOutbox(ctx());
        expect((await outboxRows()).find((row) => row.id === failed.id)!.state).toBe('failed');
        expect((await downstreamOrders()).filter((entry) => entry.orderIdentity.authorizationId === authorizationId)).toEqual([]);
      });
    });

    describe('the delivery worker', () => {
      /** A delivery worker of the app under test, as the jobs module makes it. */
      const worker = (owner: string, pollIntervalMs = 600_000) => {
        const { database, credentials } = ctx().app.services;
        return new OutboxDelivery(
          database,
          credentials,
          ctx().config.peers,
          { ...ctx().config.outbox, retryBaseMs: 60_000, retryMaxMs: 60_000 },
          { owner, pollIntervalMs, leaseSeconds: 60, stopTimeoutMs: 5000, log: quiet },
          { authorization: revokeAfterLateDelivery(ctx().app.services.database.dialect) },
        );
      };
      const messageOf = async (authorizationId: string) =>
        (await outboxRows()).find((row) => row.subject_id === authorizationId && row.kind === 'authorization')!;
      const ordersFor = async (authorizationId: string) =>
        (await downstreamOrders()).filter((entry) => entry.orderIdentity.authorizationId === authorizationId);

      it('an authorization acknowledged after it was withdrawn is sent its revocation, also when its registration is suspended', async () => {
        const { database } = ctx().app.services;
        const late = revokeAfterLateDelivery(database.dialect);
        const { authorizationId } = await sendAuthorization();
        const row = await messageOf(authorizationId);
        const registration = (state: string) =>
          database.db
            .updateTable('manage_instances')
            .set({ registration_state: state })
            .where('id', '=', ours.manageId)
            .execute();
        const revocations = async () =>
          (await outboxRows()).filter((entry) => entry.kind === 'revocation' && entry.subject_id === authorizationId);
        try {
          // suspended meanwhile: queued all the same, sent when approved again
          await registration('Suspended');
          await database.transaction((trx) => late(row, trx, new Date().toISOString()));
          expect((await revocations()).map((entry) => [entry.state, entry.target_id])).toEqual([['pending', ours.manageId]]);
          // cancelled: nothing can go to it any more, and nothing fails
          await registration('Cancelled');
          await database.transaction((trx) => late(row, trx, new Date().toISOString()));
          expect(await revocations()).toHaveLength(1);
        } finally {
          await registration('Approved');
          await database.db.deleteFrom('outbox').where('subject_id', '=', authorizationId).execute();
        }
      });

      it('is woken when a message is committed: delivered with no poll due', async () => {
        const started = worker('outbox-test-wake');
        started.start(); // looks once now, then not for ten minutes unless woken
        try {
          await new Promise((resolve) => setTimeout(resolve, 200));
          const { authorizationId } = await sendAuthorization();
          let message = await messageOf(authorizationId);
          for (let waited = 0; message.state === 'pending' && waited < 30_000; waited += 100) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            message = await messageOf(authorizationId);
          }
          expect([message.state, message.attempts, message.lease_owner, message.lease_until]).toEqual([
            'delivered',
            1,
            null,
            null,
          ]);
          expect(await ordersFor(authorizationId)).toHaveLength(1);
        } finally {
          await started.stop();
        }
      });

      it('two workers on one database lease each message once, and take over a lease that ran out', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 6; i += 1) ids.push((await sendAuthorization()).authorizationId);
        const attempts = await Promise.all([worker('outbox-test-a').runDue(), worker('outbox-test-b').runDue()]);
        expect(attempts[0]! + attempts[1]!).toBe(6);
        for (const authorizationId of ids) {
          const message = await messageOf(authorizationId);
          expect([message.state, message.attempts]).toEqual(['delivered', 1]);
          expect(await ordersFor(authorizationId)).toHaveLength(1);
        }

        // leases straight from the table: concurrent claims never share a message
        const { database } = ctx().app.services;
        const repository = new OutboxRepository(database.db, database.dialect);
        const now = new Date().toISOString();
        const subject = randomUUID();
        for (let i = 0; i < 24; i += 1) {
          await repository.enqueue(
            { kind: 'revocation', targetKind: 'manage', targetId: randomUUID(), subjectId: subject, body: { n: i } },
            now,
          );
        }
        try {
          const until = new Date(Date.now() + 60_000).toISOString();
          const claims = await Promise.all(
            ['w1', 'w2', 'w3', 'w4'].map((owner) => repository.claim(owner, new Date().toISOString(), until, 10)),
          );
          const claimed = claims.flat().filter((row) => row.subject_id === subject);
          expect(claimed).toHaveLength(24);
          expect(new Set(claimed.map((row) => row.message_id)).size).toBe(24);
          expect(await repository.claim('w5', new Date().toISOString(), until, 10)).toEqual([]);
          const stored = (await outboxRows()).filter((row) => row.subject_id === subject);
          for (const row of stored) {
            const lessee = claims.findIndex((rows) => rows.some((entry) => entry.message_id === row.message_id));
            expect([row.lease_owner, row.attempts]).toEqual([`w${lessee + 1}`, 0]);
          }
          // a worker that died: its lease runs out and another takes the message
          const dead = claims.findIndex((rows) => rows.length > 0);
          await database.db
            .updateTable('outbox')
            .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
            .where('subject_id', '=', subject)
            .where('lease_owner', '=', `w${dead + 1}`)
            .execute();
          const retaken = await repository.claim('w6', new Date().toISOString(), until, 30);
          expect(retaken.map((row) => row.lease_owner)).toEqual(claims[dead]!.map(() => 'w6'));
          expect(retaken.map((row) => row.message_id).sort()).toEqual(claims[dead]!.map((row) => row.message_id).sort());
          // a stale worker's outcome changes nothing once its lease is another's
          const stale = { error: 'late', nextAttemptAt: null };
          expect(await repository.recordFailure(retaken[0]!.message_id!, `w${dead + 1}`, stale, now)).toBe(false);
        } finally {
          await database.db.deleteFrom('outbox').where('subject_id', '=', subject).execute();
        }
      });

      it("a restarted worker takes up at once the messages a dead worker of this machine left leased; another machine's lease runs out first", async () => {
        const { database } = ctx().app.services;
        const repository = new OutboxRepository(database.db, database.dialect);
        const { authorizationId } = await sendAuthorization();
        const leaseUntil = new Date(Date.now() + 3_600_000).toISOString();
        // a process of this machine that stopped (no process has an id above Linux's highest)
        const dead = leaseOwnerName({ pid: 4_194_305, start: '1' });
        expect(await repository.claim(dead, new Date().toISOString(), leaseUntil, 100)).toContainEqual(
          expect.objectContaining({ subject_id: authorizationId, lease_owner: dead }),
        );
        const elsewhere = 'other-host:4194305:abcdef~1.00000000';
        const foreign = randomUUID();
        await repository.enqueue(
          { kind: 'revocation', targetKind: 'manage', targetId: randomUUID(), subjectId: foreign, body: {} },
          new Date().toISOString(),
        );
        await database.db
          .updateTable('outbox')
          .set({ lease_owner: elsewhere, lease_until: leaseUntil })
          .where('subject_id', '=', foreign)
          .execute();
        try {
          const restarted = worker(leaseOwnerName());
          restarted.start(); // takes over the dead worker's leases, looks once, then not for ten minutes
          try {
            let message = await messageOf(authorizationId);
            for (let waited = 0; message.state === 'pending' && waited < 30_000; waited += 100) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              message = await messageOf(authorizationId);
            }
            expect([message.state, message.attempts, message.lease_owner]).toEqual(['delivered', 1, null]);
          } finally {
            await restarted.stop();
          }
          expect(await ordersFor(authorizationId)).toHaveLength(1);
          const kept = (await outboxRows()).find((row) => row.subject_id === foreign);
          expect([kept?.state, kept?.lease_owner, kept?.lease_until, kept?.attempts]).toEqual([
            'pending',
            elsewhere,
            leaseUntil,
            0,
          ]);
        } finally {
          await database.db.deleteFrom('outbox').where('subject_id', '=', foreign).execute();
        }
      });
    });

    describe('retry now', () => {
      it('POST /ui/admin/outbox/retry needs a session and ADMIN; unknown or finished messages are refused', async () => {
        const body = { messageId: randomUUID() };
        expect((await ctx().call('POST', '/ui/admin/outbox/retry', { body })).statusCode).toBe(401);
        expectToken(await call('POST', '/ui/admin/outbox/retry', body, user), 403, 'actionNotAllowed');
        expectToken(await call('POST', '/ui/admin/outbox/retry', body), 404, 'entityDoesNotExist', 'messageId');
        const delivered = (await outboxRows()).find((row) => row.state === 'delivered')!;
        expectToken(
          await call('POST', '/ui/admin/outbox/retry', { messageId: delivered.message_id }),
          420,
          'outboxMessageNotRetryable',
          'messageId',
        );
        expect((await outboxRows()).find((row) => row.id === delivered.id)).toEqual(delivered);
      });

      it('takes a given-up message up again at once; audited; delivered once', async () => {
        const db = ctx().app.services.database.db;
        const { authorizationId } = await sendAuthorization();
        await whileUnreachable(ours.manageId, ours.manageURL, () => deliverOutbox(ctx(), 60_000, 1));
        const failed = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([failed.state, failed.attempts]).toEqual(['failed', 1]);
        const before = Date.now();
        const retried = await call('POST', '/ui/admin/outbox/retry', { messageId: failed.message_id });
        expect(retried.statusCode, retried.body).toBe(200);
        expect(retried.json<TOutboxMessage>()).toMatchObject({ messageId: failed.message_id, state: 'pending', attempts: 1 });
        expect(Date.parse(retried.json<TOutboxMessage>().nextAttemptAt)).toBeGreaterThanOrEqual(before - 1000);
        const audit = await db
          .selectFrom('audit_events')
          .selectAll()
          .where('event_type', '=', 'outboxMessageRetried')
          .where('subject', '=', failed.message_id)
          .execute();
        expect(audit).toHaveLength(1);
        expect(JSON.parse(audit[0]!.details!)).toEqual({
          kind: 'authorization',
          targetId: ours.manageId,
          subjectId: authorizationId,
          state: 'failed',
          attempts: 1,
        });
        await deliverOutbox(ctx(), 60_000, 1);
        const delivered = (await outboxRows()).find((row) => row.subject_id === authorizationId)!;
        expect([delivered.state, delivered.attempts, delivered.last_error]).toEqual(['delivered', 2, null]);
        expect(
          (await downstreamOrders()).filter((entry) => entry.orderIdentity.authorizationId === authorizationId),
        ).toHaveLength(1);
      });
    });

    describe('retention', () => {
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

      it('purges delivered and withdrawn messages (not authorizations) and applied peer message ids after OUTBOX_RETENTION_DAYS', async () => {
        const { database } = ctx().app.services;
        const db = database.db;
        const subject = randomUUID();
        const row = (kind: string, state: string, at: string) => ({
          kind,
          target_kind: 'manage',
          target_id: ours.manageId,
          subject_id: subject,
          payload: '{}',
          state,
          attempts: 1,
          next_attempt_at: at,
          last_error: null,
          created_at: at,
          updated_at: at,
          message_id: randomUUID(),
          delivered_at: state === 'delivered' ? at : null,
          expires_at: null,
          lease_owner: null,
          lease_until: null,
        });
        const rows = [
          row('event', 'delivered', daysAgo(31)),
          row('revocation', 'delivered', daysAgo(31)),
          row('event', 'cancelled', daysAgo(31)),
          row('authorization', 'delivered', daysAgo(31)),
          row('event', 'failed', daysAgo(31)),
          row('event', 'delivered', daysAgo(29)),
        ];
        await db.insertInto('outbox').values(rows).execute();
        const registration = randomUUID();
        const applied = (at: string) => ({
          registration_id: registration,
          message_id: randomUUID(),
          kind: 'event',
          received_at: at,
        });
        const seen = [applied(daysAgo(31)), applied(daysAgo(29))];
        await db.insertInto('peer_messages').values(seen).execute();

        await outboxPurgeJob(database, { retentionDays: 30 }, quiet).run(null, {
          jobId: 0,
          attempt: 1,
          signal: new AbortController().signal,
        });
        const kept = (await outboxRows()).filter((entry) => entry.subject_id === subject).map((entry) => entry.message_id);
        expect(kept.sort()).toEqual([rows[3]!.message_id, rows[4]!.message_id, rows[5]!.message_id].sort());
        const keptIds = await db
          .selectFrom('peer_messages')
          .select('message_id')
          .where('registration_id', '=', registration)
          .execute();
        expect(keptIds.map((entry) => entry.message_id)).toEqual([seen[1]!.message_id]);
        await db.deleteFrom('outbox').where('subject_id', '=', subject).execute();
        await db.deleteFrom('peer_messages').where('registration_id', '=', registration).execute();
      });

      it('forgets nonces after twice the timestamp window: a message that old is refused by its timestamp', async () => {
        const { database, peerRegistrations } = ctx().app.services;
        const db = database.db;
        const sender = await peerIdentity(downstream.root, { purpose: 'signing' });
        const registration = { id: randomUUID(), nonce: randomUUID() };
        const now = new Date().toISOString();
        await db
          .insertInto('manage_instances')
          .values({
            id: registration.id,
            manage_site_name: 'Nonce Peer',
            manage_url: 'http://127.0.0.1:9',
            manage_type: 'downStreamManage',
            registration_state: 'Approved',
            initiator: 1,
            signing_certificate: sender.certificatePem,
            encryption_certificate: null,
            registration_nonce: registration.nonce,
            version: 1,
            created_at: now,
            updated_at: now,
          })
          .execute();
        const message = async (signedAt: number) => {
          const apl = {
            registrationNonce: registration.nonce,
            messageId: randomUUID(),
            kind: 'revocation' as const,
            timestamp: new Date(signedAt).toISOString(),
            nonce: randomUUID(),
            body: {},
          };
          return {
            input: {
              aplType: 'downstreamManage' as const,
              apl,
              signature: await signDetachedJws(canonicalJson(apl), sender.privateKeyPem),
            },
            apl,
          };
        };
        const receive = async (signed: Awaited<ReturnType<typeof message>>) => {
          const peer = await peerRegistrations.authenticate(signed.input, signed.apl);
          await database.transaction((trx) => peerRegistrations.rememberNonce(trx, peer.id, signed.apl.nonce));
        };
        const remembered = async (at: number) => {
          await db
            .updateTable('peer_nonces')
            .set({ created_at: new Date(at).toISOString() })
            .where('registration_id', '=', registration.id)
            .execute();
        };
        const purge = () =>
          outboxPurgeJob(database, { retentionDays: 30 }, quiet).run(null, {
            jobId: 0,
            attempt: 1,
            signal: new AbortController().signal,
          });
        try {
          // received within the window: kept by the purge, so its replay is refused by the nonce
          const recent = await message(Date.now());
          await receive(recent);
          await remembered(Date.now() - PEER_NONCES_KEPT_MS + 60_000);
          await purge();
          await expect(receive(recent)).rejects.toMatchObject({ token: 'duplicateAplReceived' });
          await db.deleteFrom('peer_nonces').where('registration_id', '=', registration.id).execute();

          // the oldest nonce the purge forgets was received twice the window ago; the message it
          // came with was signed at most one window after that (clocks apart by up to a window),
          // so a replay now is outside the window: refused by its timestamp
          const receivedAt = Date.now() - PEER_NONCES_KEPT_MS - 1000;
          const old = await message(receivedAt + PEER_NONCES_KEPT_MS / 2);
          await db
            .insertInto('peer_nonces')
            .values({ registration_id: registration.id, nonce: old.apl.nonce, created_at: new Date(receivedAt).toISOString() })
            .execute();
          await purge();
          expect(
            await db.selectFrom('peer_nonces').select('nonce').where('registration_id', '=', registration.id).execute(),
          ).toEqual([]);
          await expect(receive(old)).rejects.toMatchObject({ token: 'registrationExchangeInvalidApl', field: 'apl.timestamp' });
        } finally {
          await db.deleteFrom('peer_nonces').where('registration_id', '=', registration.id).execute();
          await db.deleteFrom('manage_instances').where('id', '=', registration.id).execute();
        }
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
        chain = new MachineChain(await registerApprovedMachine(ctx(), downstream.root));
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

        await deliverOutbox(ctx());
        expect((await queued()).map((item) => item.eventId)).not.toContain(eventId);
        const stored = (await traceEvents()).find((item) => item.eventId === eventId)!;
        expect(stored).toMatchObject({ source: 'peer', event: { kind: 'machineIdle', deviceId: chain.world.deviceId } });
        expectToken(await call('POST', '/ui/queue/send', { eventId }), 420, 'traceEventIdNotValid');
      });

      it('this server’s own events (an inspection’s quality check) reach the Trace, chained there apart', async () => {
        const { database, events } = ctx().app.services;
        await events.prepareServerChain();
        const authorization = {
          id: randomUUID(),
          device_id: chain.world.deviceId,
          state: 'sent',
          order_id: randomUUID(),
          dsi_id: 'dsi-1',
        };
        const receipt = await database.transaction((trx) =>
          events.recordServerEvent(
            trx,
            {
              kind: 'qualityCheckPassed',
              authorization,
              jobId: 'job-1',
              data: { technician: 'Grace' },
              proof: { inspectionId: randomUUID() },
            },
            { username: 'admin', sourceIp: '127.0.0.1' },
          ),
        );
        expect((await queued()).map((item) => item.eventId)).toContain(receipt.eventId);
        await deliverOutbox(ctx());
        expect((await queued()).map((item) => item.eventId)).not.toContain(receipt.eventId);
        const stored = (await traceEvents()).find((item) => item.eventId === receipt.eventId)!;
        expect(stored).toMatchObject({ source: 'peer', event: { kind: 'qualityCheckPassed' } });
        expect(stored.event.deviceId).not.toBe(SERVER_CHAIN_ID);
        // the Trace's copy is the event as hashed here, on this server's own chain
        const xml = await downstream.call('GET', `/ui/queue/download?traceEventId=${receipt.eventId}`);
        expect(xml.statusCode).toBe(200);
        expect(xml.body).toContain(`<DeviceId>${SERVER_CHAIN_ID}</DeviceId>`);
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
        await deliverOutbox(ctx());
        const entry = (await queued()).find((item) => item.eventId === waiting)!;
        expect(entry).toMatchObject({ state: 'pending', attempts: 1, delivered: 0 });
        expect(entry.lastError).toContain('registrationExchangeCommunicationFailed');
        await db.updateTable('manage_instances').set({ manage_url: realUrl }).where('id', '=', traceId).execute();

        expect((await call('POST', '/ui/queue/delete', { eventId: dropped })).statusCode).toBe(200);
        expectToken(await call('POST', '/ui/queue/delete', { eventId: dropped }), 420, 'traceEventIdNotValid');
        expect((await call('POST', '/ui/queue/send', { eventId: waiting })).statusCode).toBe(200);
        await deliverOutbox(ctx()); // queue/send made it due now (its back-off ran a minute)
        expect((await queued()).map((item) => item.eventId)).not.toContain(waiting);
        const ids = (await traceEvents()).map((item) => item.eventId);
        expect(ids).toContain(waiting);
        expect(ids).not.toContain(dropped);
        expectToken(await call('GET', `/ui/queue/download?traceEventId=${randomUUID()}`), 420, 'traceEventIdNotValid');
        expectToken(await call('POST', '/ui/queue/send', { eventId: 'nope' }), 420, 'traceEventIdNotValid');
      });

      describe('machines and batch envelopes reach the Trace instance', () => {
        let batchChain: MachineChain;
        const messagesTo = async (kind: string, subjectId: string) =>
          (await outboxRows()).filter((row) => row.kind === kind && row.subject_id === subjectId && row.target_id === traceId);
        const traceHistory = async (deviceId: string) => downstream.call('GET', `/ui/event/export?deviceId=${deviceId}`);
        /** Sends the events as one batch-signed envelope; answers its batch id (as the events' stored proofs name it). */
        const sendSignedBatch = async (batch: ReturnType<MachineChain['next']>[]) => {
          const sent = await batchChain.sendSignedBatch(ctx(), batch);
          expect(sent.statusCode, sent.body).toBe(200);
          const stored = await ctx()
            .app.services.database.db.selectFrom('trace_events')
            .select('proof')
            .where('event_id', '=', batch[0]!.eventId)
            .executeTakeFirstOrThrow();
          return (JSON.parse(stored.proof) as { batch: string }).batch;
        };

        beforeAll(async () => {
          // a machine approved while the Trace registration was not approved yet: nothing reported then
          const db = ctx().app.services.database.db;
          await db.updateTable('manage_instances').set({ registration_state: 'Pending' }).where('id', '=', traceId).execute();
          try {
            batchChain = new MachineChain(await registerApprovedMachine(ctx(), downstream.root));
          } finally {
            await db.updateTable('manage_instances').set({ registration_state: 'Approved' }).where('id', '=', traceId).execute();
          }
        });

        it('a machine approved here is reported to the Trace at once (spec §4), once', async () => {
          const { machine, deviceId } = await registerApprovedMachine(ctx(), downstream.root);
          const [message, ...more] = await messagesTo('device', deviceId);
          expect(more).toEqual([]);
          expect(JSON.parse(message!.payload)).toEqual({
            deviceId,
            name: machine.apl.deviceIdentity.name,
            serialNumber: machine.apl.deviceIdentity.serialNumber,
            model: machine.apl.deviceIdentity.model,
            manufacturer: machine.apl.deviceIdentity.manufacturer,
            signingCertificate: machine.apl.signingCertificate,
          });
          expectToken(await traceHistory(deviceId), 420, 'deviceIdNotValid');
          await deliverOutbox(ctx());
          const exported = await traceHistory(deviceId);
          expect(exported.statusCode, exported.body).toBe(200);
          expect(exported.json()).toMatchObject({ deviceId, signingCertificate: machine.apl.signingCertificate, events: [] });
          // its events do not report it again
          const events = new MachineChain({ machine, deviceId });
          expect((await events.sendXml(ctx(), events.xml(events.next('machineIdle')))).statusCode).toBe(200);
          expect(await messagesTo('device', deviceId)).toHaveLength(1);
        });

        it('a machine whose name, model and manufacturer are as long as registration allows is reported all the same', async () => {
          const long = (what: string) => `${what} `.padEnd(256, 'x');
          const machine = await testMachine(downstream.root, { model: long('Model'), manufacturer: long('Maker') });
          // the name is the certificates' subject too, which is shorter; the registration takes 256 characters
          machine.apl.deviceIdentity.name = long('Name');
          const registered = await ctx().call('POST', '/apl/registration/add', { body: await machine.request() });
          expect(registered.statusCode, registered.body).toBe(200);
          const { deviceId } = registered.json<{ deviceId: string }>();
          expect((await call('POST', '/ui/device/approve', { id: deviceId, approve: true })).statusCode).toBe(200);
          await deliverOutbox(ctx());
          const [message] = await messagesTo('device', deviceId);
          expect([message!.state, message!.last_error]).toEqual(['delivered', null]);
          const exported = await traceHistory(deviceId);
          expect(exported.statusCode, exported.body).toBe(200);
          expect(exported.json()).toMatchObject({ deviceId, signingCertificate: machine.apl.signingCertificate });
        });

        it('queue/send of a given-up event takes up its machine and its batch envelope given up with it', async () => {
          const db = ctx().app.services.database.db;
          const given = new MachineChain(await registerApprovedMachine(ctx(), downstream.root));
          const [chain, next] = [given.next('machineIdle'), given.next('machineIdle')];
          const sent = await given.sendSignedBatch(ctx(), [chain, next]);
          expect(sent.statusCode, sent.body).toBe(200);
          const stored = await db
            .selectFrom('trace_events')
            .select('proof')
            .where('event_id', '=', chain.eventId)
            .executeTakeFirstOrThrow();
          const batchId = (JSON.parse(stored.proof) as { batch: string }).batch;
          const subjects = [given.world.deviceId, batchId, chain.eventId];
          // the Trace unreachable past the event timeout: every message given up (failed)
          await db
            .updateTable('outbox')
            .set({ state: 'failed', last_error: 'registrationExchangeCommunicationFailed' })
            .where('target_id', '=', traceId)
            .where('subject_id', 'in', subjects)
            .execute();
          expect((await call('POST', '/ui/queue/send', { eventId: chain.eventId })).statusCode).toBe(200);
          await deliverOutbox(ctx());
          for (const [kind, subject] of [
            ['device', given.world.deviceId],
            ['eventBatch', batchId],
            ['event', chain.eventId],
          ] as const) {
            expect(
              (await messagesTo(kind, subject)).map((message) => message.state),
              kind,
            ).toEqual(['delivered']);
          }
          const exported = await traceHistory(given.world.deviceId);
          expect(exported.statusCode, exported.body).toBe(200);
          const history = exported.json() as TTraceHistory;
          // the batch's other event was only waiting: it went as well
          expect(history.events.map((event) => event.eventId)).toEqual([chain.eventId, next.eventId]);
          expect((await verifyHistory(history)).problems).toEqual([]);
        });

        it('a machine approved before the Trace was added is reported with its first event; a batch envelope goes once; the history checks offline there', async () => {
          expect(await messagesTo('device', batchChain.world.deviceId)).toEqual([]);
          const first = batchChain.next('machineIdle');
          expect((await batchChain.sendXml(ctx(), batchChain.xml(first))).statusCode).toBe(200);
          expect(await messagesTo('device', batchChain.world.deviceId)).toHaveLength(1);
          const batch = [
            batchChain.next('machineIdle'),
            batchChain.next('machineIdle', { data: { note: 'batch' } }),
            batchChain.next('machineIdle'),
          ];
          const batchId = await sendSignedBatch(batch);
          const [envelopeMessage, ...again] = await messagesTo('eventBatch', batchId);
          expect(again).toEqual([]);
          expect(JSON.parse(envelopeMessage!.payload)).toMatchObject({
            batchId,
            envelope: { deviceId: batchChain.world.deviceId },
          });
          for (const event of batch) expect(await messagesTo('event', event.eventId)).toHaveLength(1);
          expect(await messagesTo('device', batchChain.world.deviceId)).toHaveLength(1);

          await deliverOutbox(ctx());
          const exported = await traceHistory(batchChain.world.deviceId);
          expect(exported.statusCode, exported.body).toBe(200);
          const history = exported.json() as TTraceHistory;
          expect(history.signingCertificate).toBe(batchChain.world.machine.apl.signingCertificate);
          expect(history.events.map((event) => event.eventId)).toEqual([first, ...batch].map((event) => event.eventId));
          expect(history.events.slice(1).map((event) => event.proof)).toEqual(
            batch.map((_, index) => ({ format: 'stp-batch', batch: batchId, index })),
          );
          expect(history.batches.map((entry) => entry.batchId)).toEqual([batchId]);
          const report = await verifyHistory(history);
          expect(report.problems).toEqual([]);
          expect(report.breaks).toEqual([]);
          // an envelope changed on the way would not verify
          const forged = structuredClone(history);
          (forged.batches[0]!.envelope.body as { batch: { data: Record<string, string> }[] }).batch[1]!.data = {
            note: 'changed',
          };
          expect((await verifyHistory(forged)).problems).not.toEqual([]);
        });
        it("a machine's messages to the Trace go one at a time, in the order queued: its events arrive in chain order", async () => {
          const events = [batchChain.next('machineIdle'), batchChain.next('machineIdle'), batchChain.next('machineIdle')];
          for (const event of events) expect((await batchChain.sendXml(ctx(), batchChain.xml(event))).statusCode).toBe(200);
          const queuedIds = await Promise.all(events.map(async (event) => (await messagesTo('event', event.eventId))[0]!.id));
          expect(queuedIds).toEqual([...queuedIds].sort((a, b) => a - b));
          // a lease takes the first of them only, and the second once the first is no longer pending
          const repository = new OutboxRepository(ctx().app.services.database.db, ctx().app.services.database.dialect);
          const lease = async () => {
            const now = new Date();
            const rows = await repository.claim(
              'order-probe',
              now.toISOString(),
              new Date(now.getTime() + 60_000).toISOString(),
              100,
            );
            await repository.release(
              rows.map((row) => row.message_id!),
              'order-probe',
              now.toISOString(),
            );
            return rows.filter((row) => queuedIds.includes(row.id)).map((row) => row.id);
          };
          expect(await lease()).toEqual([queuedIds[0]]);
          await ctx()
            .app.services.database.db.updateTable('outbox')
            .set({ state: 'delivered' })
            .where('id', '=', queuedIds[0]!)
            .execute();
          expect(await lease()).toEqual([queuedIds[1]]);
          await ctx()
            .app.services.database.db.updateTable('outbox')
            .set({ state: 'pending' })
            .where('id', '=', queuedIds[0]!)
            .execute();
          await deliverOutbox(ctx());
          const history = (await traceHistory(batchChain.world.deviceId)).json() as TTraceHistory;
          const tail = history.events.slice(-3);
          expect(tail.map((event) => [event.eventId, event.chainFinding])).toEqual(events.map((event) => [event.eventId, null]));
          expect((await verifyHistory(history)).breaks).toEqual([]);
        });

        it("a message the Trace refuses for good is given up at once and does not hold the machine's later ones", async () => {
          const other = await registerApprovedMachine(ctx(), downstream.root);
          // the machine reported again with another certificate: the Trace answers registrationExchangeAlreadyRegistered
          const { database } = ctx().app.services;
          await database.transaction((trx) =>
            new OutboxRepository(trx, database.dialect).enqueue(
              {
                kind: 'device',
                targetKind: 'trace',
                targetId: traceId,
                subjectId: batchChain.world.deviceId,
                body: {
                  deviceId: batchChain.world.deviceId,
                  name: 'Impostor',
                  serialNumber: 'SN-X',
                  model: 'M',
                  manufacturer: 'Maker',
                  signingCertificate: other.machine.apl.signingCertificate,
                },
                orderingKey: batchChain.world.deviceId,
              },
              new Date().toISOString(),
            ),
          );
          const event = batchChain.next('machineIdle');
          expect((await batchChain.sendXml(ctx(), batchChain.xml(event))).statusCode).toBe(200);
          await deliverOutbox(ctx());
          const refused = (await messagesTo('device', batchChain.world.deviceId)).at(-1)!;
          expect(refused).toMatchObject({ state: 'failed', attempts: 1 });
          expect(refused.last_error).toContain('registrationExchangeAlreadyRegistered');
          expect(await messagesTo('event', event.eventId)).toMatchObject([{ state: 'delivered' }]);
          const history = (await traceHistory(batchChain.world.deviceId)).json() as TTraceHistory;
          expect(history.signingCertificate).toBe(batchChain.world.machine.apl.signingCertificate);
          expect(history.events.at(-1)).toMatchObject({ eventId: event.eventId, chainFinding: null });
        });

        it('an envelope of more than a megabyte (a peer message larger than other calls take) reaches the Trace whole', async () => {
          const data = Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`field${k}`, 'x'.repeat(1024)]));
          const batch = Array.from({ length: 160 }, () => batchChain.next('machineIdle', { data }));
          const batchId = await sendSignedBatch(batch);
          const [message] = await messagesTo('eventBatch', batchId);
          expect(message!.payload.length).toBeGreaterThan(1024 * 1024);
          await deliverOutbox(ctx());
          expect((await outboxRows()).find((row) => row.id === message!.id)).toMatchObject({
            state: 'delivered',
            last_error: null,
          });
          const history = (await traceHistory(batchChain.world.deviceId)).json() as TTraceHistory;
          expect(history.batches.map((entry) => entry.batchId)).toContain(batchId);
          const report = await verifyHistory(history);
          expect(report.problems).toEqual([]);
          expect(report.events).toBe(history.events.length);
        });
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

      it('chains each reporting instance’s own events (its server chain, an id every instance shares) apart', async () => {
        const { database, events, settings } = ctx().app.services;
        await settings.set('traceEnabled', 'true');
        const peers = ['Site A', 'Site B'].map((name) => ({ id: randomUUID(), manage_site_name: name }) as ManageInstanceRow);
        // each instance's first inspection, then Site A's second: three events on "the" server chain
        const inspection = (previousHash: string | null) => {
          const body = {
            eventId: randomUUID(),
            kind: 'qualityCheckPassed' as const,
            occurredAt: new Date().toISOString(),
            authorizationId: randomUUID(),
            jobId: 'job-1',
            quantity: null,
            previousHash,
            data: { technician: 'Grace' },
          };
          return {
            deviceId: SERVER_CHAIN_ID,
            body,
            eventHash: eventHash(canonicalEvent(body, SERVER_CHAIN_ID)),
            orderId: randomUUID(),
            dsiId: null,
            proof: { format: 'server', inspectionId: randomUUID() },
            receivedAt: new Date().toISOString(),
          };
        };
        const receive = (peer: ManageInstanceRow, input: unknown) =>
          database.transaction((trx) => events.receiveForwarded(trx, peer, input, '127.0.0.1', new Date().toISOString()));
        const a1 = inspection(null);
        const b1 = inspection(null);
        const a2 = inspection(a1.eventHash);
        await receive(peers[0]!, a1);
        await receive(peers[1]!, b1);
        await receive(peers[0]!, a2);
        const rows = await database.db
          .selectFrom('trace_events')
          .select(['event_id', 'device_id', 'sequence', 'chain_finding', 'event_hash'])
          .where('event_id', 'in', [a1.body.eventId, b1.body.eventId, a2.body.eventId])
          .execute();
        const byId = new Map(rows.map((row) => [row.event_id, row]));
        expect([a1, b1, a2].map((event) => byId.get(event.body.eventId)!.chain_finding)).toEqual([null, null, null]);
        expect([a1, b1, a2].map((event) => byId.get(event.body.eventId)!.event_hash)).toEqual([
          a1.eventHash,
          b1.eventHash,
          a2.eventHash,
        ]);
        const [chainA, chainB] = [byId.get(a1.body.eventId)!.device_id, byId.get(b1.body.eventId)!.device_id];
        expect(new Set([chainA, chainB, SERVER_CHAIN_ID]).size).toBe(3);
        expect(byId.get(a2.body.eventId)).toMatchObject({ device_id: chainA, sequence: 2 });
        expect(byId.get(b1.body.eventId)).toMatchObject({ sequence: 1 });
        // an instance's own proof comes only on its own chain, and its own chain only with that proof
        const mislabelled = inspection(null);
        const machineId = randomUUID();
        const onMachine = {
          ...mislabelled,
          deviceId: machineId,
          eventHash: eventHash(canonicalEvent(mislabelled.body, machineId)),
        };
        const unproven = { ...inspection(null), proof: { format: 'xml', xml: '<TraceEvent/>' } };
        for (const input of [onMachine, unproven]) {
          await expect(receive(peers[0]!, input)).rejects.toMatchObject({
            token: 'registrationExchangeInvalidApl',
            field: 'apl.body.proof',
          });
        }
      });

      it('takes reported machines and batch envelopes: checked, stored once; refused with the right token', async () => {
        const { database, events, settings } = ctx().app.services;
        const handlers = events.handlers();
        const peerRow = { id: randomUUID(), manage_site_name: 'Reporting Site' } as ManageInstanceRow;
        const context = { sourceIp: '127.0.0.1', now: new Date().toISOString(), ownSigningSerial: '' };
        const apply = (kind: 'device' | 'eventBatch', body: unknown) =>
          database.transaction((trx) => handlers[kind].apply(trx, peerRow, body, context));
        const { machine, deviceId } = await registerApprovedMachine(downstream, downstream.root);
        const otherMachine = await registerApprovedMachine(downstream, downstream.root);
        const reported = {
          deviceId: randomUUID(),
          name: 'Printer',
          serialNumber: 'SN-1',
          model: 'M',
          manufacturer: 'Maker',
          signingCertificate: machine.apl.signingCertificate,
        };
        await settings.set('traceEnabled', 'false');
        await expect(apply('device', reported)).rejects.toMatchObject({ token: 'traceFuncitionalityNotEnabled' });
        await settings.set('traceEnabled', 'true');
        await expect(apply('device', { ...reported, signingCertificate: 'not a certificate' })).rejects.toMatchObject({
          token: 'registrationExchangeInvalidApl',
          field: 'apl.body.signingCertificate',
        });
        await expect(apply('device', { ...reported, name: undefined })).rejects.toMatchObject({
          token: 'registrationExchangeInvalidApl',
          field: 'apl.body.name',
        });
        await apply('device', reported);
        await apply('device', reported); // the same again: nothing more
        await expect(
          apply('device', { ...reported, signingCertificate: otherMachine.machine.apl.signingCertificate }),
        ).rejects.toMatchObject({ token: 'registrationExchangeAlreadyRegistered', field: 'apl.body.deviceId' });
        const rows = await database.db
          .selectFrom('peer_devices')
          .selectAll()
          .where('device_id', '=', reported.deviceId)
          .execute();
        expect(rows.map((row) => [row.manage_id, JSON.parse(row.identity), row.signing_certificate])).toEqual([
          [
            peerRow.id,
            { name: 'Printer', serialNumber: 'SN-1', model: 'M', manufacturer: 'Maker' },
            machine.apl.signingCertificate,
          ],
        ]);
        const exported = await call('GET', `/ui/event/export?deviceId=${reported.deviceId}`);
        expect(exported.statusCode, exported.body).toBe(200);
        expect(exported.json()).toMatchObject({
          deviceId: reported.deviceId,
          signingCertificate: machine.apl.signingCertificate,
          events: [],
        });

        const envelope = {
          deviceId,
          timestamp: new Date().toISOString(),
          nonce: randomUUID(),
          body: { batch: [] },
          signature: `sig-${randomUUID()}`,
        };
        const batchId = batchIdOf(envelope);
        await settings.set('traceEnabled', 'false');
        await expect(apply('eventBatch', { batchId, envelope })).rejects.toMatchObject({
          token: 'traceFuncitionalityNotEnabled',
        });
        await settings.set('traceEnabled', 'true');
        await expect(apply('eventBatch', { batchId: 'a'.repeat(64), envelope })).rejects.toMatchObject({
          token: 'registrationExchangeInvalidApl',
          field: 'apl.body.batchId',
        });
        await expect(apply('eventBatch', { batchId, envelope: { ...envelope, signature: undefined } })).rejects.toMatchObject({
          token: 'registrationExchangeInvalidApl',
          field: 'apl.body.envelope.signature',
        });
        await apply('eventBatch', { batchId, envelope });
        await apply('eventBatch', { batchId, envelope }); // stored once
        const batches = await database.db.selectFrom('trace_event_batches').selectAll().where('batch_id', '=', batchId).execute();
        expect(batches.map((row) => [row.device_id, JSON.parse(row.envelope)])).toEqual([[deviceId, envelope]]);
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

      it('refuses a message nested too deeply with 400 malformedRequest, not a server error', async () => {
        const message = await signed({});
        // a JSON text written by hand: no signer walks a value nested this deeply
        const text = JSON.stringify({ ...message, apl: { ...(message.apl as object), body: '(body)' } }).replace(
          '"(body)"',
          `{"reason":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
        );
        const response = await fetch(`${downstream.url}/apl/peer/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        const body = await response.text();
        expect(response.status, body).toBe(400);
        expect(JSON.parse(body)).toMatchObject({ errorToken: 'malformedRequest', field: 'body' });
      });

      it('refuses forged signatures, stale timestamps, unknown registrations and kinds the peer may not send', async () => {
        const message = await signed({});
        const forger = await peerIdentity(downstream.root, { purpose: 'signing' });
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
