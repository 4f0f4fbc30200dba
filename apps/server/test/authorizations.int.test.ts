import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TAuthorization, TOrderDetail, TPage } from '@manifold/contract';
import { pathOf, runTool, withTempFiles } from '../src/crypto/crypto-test-helpers.js';
import { ANCHOR_EVERY } from '../src/db/anchored-paging.js';
import { decryptContent, unwrapContentKey } from '../src/crypto/design-keys.js';
import { verifyXmlSignature } from '../src/crypto/xml-signature.js';
import {
  addOrder,
  authorize,
  expectExactBooks,
  policyFor,
  registerApprovedMachine,
  suiteLicensingWorld,
} from './helpers/licensing-fixtures.js';
import { describeEachDatabase, expectToken, expectTokens, type TestApp } from './helpers/test-app.js';

const uuid = '00000000-0000-4000-8000-000000000000';

async function manageInstance(ctx: TestApp, type: string, state: string): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await ctx.app.services.database.db
    .insertInto('manage_instances')
    .values({
      id,
      manage_site_name: `Peer ${type}`,
      manage_url: 'https://peer.example',
      manage_type: type,
      registration_state: state,
      initiator: 0,
      signing_certificate: null,
      encryption_certificate: null,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

describeEachDatabase('authorizations', (ctx) => {
  const world = suiteLicensingWorld(ctx);
  const call = async (path: string, body: unknown, token?: string) =>
    ctx().call('POST', path, { token: token ?? (await ctx().adminToken()), body });
  const fetchOrder = async (orderId: string) =>
    (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token: await ctx().adminToken() })).json<TOrderDetail>();

  describe('every authorization endpoint', () => {
    it('should require authentication', async () => {
      for (const url of [
        '/ui/authorization/list',
        `/ui/authorization/download?orderId=${uuid}&authorizationId=${uuid}`,
        '/ui/enforce/order/list',
        '/ui/dtl/list',
      ])
        expectToken(await ctx().call('GET', url), 401, 'invalidSessionToken');
      for (const url of ['/ui/authorization/authorize', '/ui/authorization/send', '/ui/authorization/revoke'])
        expectToken(await ctx().call('POST', url, { body: {} }), 401, 'invalidSessionToken');
    });

    it('lets a USER call them (both roles, spec §6)', async () => {
      const { token } = await ctx().createUser();
      for (const url of ['/ui/authorization/list', '/ui/enforce/order/list', '/ui/dtl/list'])
        expect((await ctx().call('GET', url, { token })).statusCode, url).toBe(200);
      expectToken(await call('/ui/authorization/send', { orderId: uuid }, token), 420, 'orderIdNotValid');
    });
  });

  describe('POST /ui/authorization/authorize', () => {
    it('authorizes part of an order to an approved machine, taking quantity and serial numbers', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, { serialization: { type: 'Dec', prefix: 'P', start: 100, end: 199 } }),
      );
      const expiration = Date.now() + 86_400_000;
      const first = await authorize(ctx(), {
        orderId,
        deviceId: world.deviceId,
        quantity: 3,
        expiration,
        authorizedUserList: ['admin'],
        tracking: [{ fieldName: 'batch', fieldValue: 'B-7' }],
        deviceParameters: [
          {
            parameterId: 'bedTemperature',
            type: 'integer',
            low: 60,
            high: 100,
            resetValue: 65,
            adjust: 'INCREASE',
            required: true,
          },
        ],
      });
      const second = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 2 });
      const order = await fetchOrder(orderId);
      expect(order).toMatchObject({ allocatedQuantity: 5, remainingQuantity: 5, serialization: { next: 105 } });
      const [a, b] = order.authorizations.data;
      expect(a).toMatchObject({
        authorizationId: first,
        type: 'device',
        deviceId: world.deviceId,
        quantity: 3,
        state: 'authorized',
        expiration: new Date(expiration).toISOString(),
        serialNumbers: { first: 'P100', last: 'P102', count: 3 },
        authorizedUserList: ['admin'],
        tracking: [{ fieldName: 'batch', fieldValue: 'B-7' }],
      });
      expect(b).toMatchObject({
        authorizationId: second,
        serialNumbers: { first: 'P103', last: 'P104' },
        expiration: order.expiration,
      });
      // newest first; each names its authorization, quantity, machine and first serial number
      expect(order.history.filter((h) => h.eventType === 'licenceAuthorized').map((h) => h.details)).toEqual([
        {
          authorizationId: second,
          quantity: 2,
          target: { deviceId: world.deviceId },
          serialFirst: 103,
          expiration: order.expiration,
        },
        {
          authorizationId: first,
          quantity: 3,
          target: { deviceId: world.deviceId },
          serialFirst: 100,
          expiration: new Date(expiration).toISOString(),
        },
      ]);
      expectToken(await call('/ui/device/delete', { deviceId: world.deviceId }), 420, 'deviceHasLiveAuthorizations');
    });

    it("carries the order's newest 50 audit records and says when older ones exist", async () => {
      const orderId = await addOrder(ctx(), policyFor(world, { quantity: 100 }));
      const ids: string[] = [];
      for (let i = 0; i < 49; i += 1) ids.push(await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 }));
      // licenceReceived and 49 licenceAuthorized: all of them, nothing older
      let order = await fetchOrder(orderId);
      expect(order.history).toHaveLength(50);
      expect(order.historyTruncated).toBe(false);
      expect(order.history.at(-1)!.eventType).toBe('licenceReceived');

      ids.push(await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 }));
      order = await fetchOrder(orderId);
      expect(order.historyTruncated).toBe(true);
      // the newest 50, newest first: the 50 authorizations, the order's receipt left to the audit list
      expect(order.history.map((h) => (h.details as { authorizationId: string }).authorizationId)).toEqual([...ids].reverse());
      const audit = (
        await ctx().call('GET', `/ui/audit/list?subject=${orderId}&numberOfItems=100`, { token: await ctx().adminToken() })
      ).json<{ totalNumOfItems: number; data: { eventType: string }[] }>();
      expect(audit.totalNumOfItems).toBe(51);
      expect(audit.data.at(-1)!.eventType).toBe('licenceReceived');
    });

    it("pages the order's authorizations from anchors: every page as OFFSET paging gives it, and a new one seen at once", async () => {
      const orderId = await addOrder(ctx(), policyFor(world, { quantity: 100 }));
      const first = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
      const db = ctx().app.services.database.db;
      const row = await db.selectFrom('authorizations').selectAll().where('id', '=', first).executeTakeFirstOrThrow();
      // copies of it, spread over time with ties (the id decides), past two anchors
      const base = Date.parse('2026-01-01T00:00:00Z');
      const serial = (value: string | number | null) => (value === null ? null : Number(value));
      const copies = Array.from({ length: ANCHOR_EVERY * 2 + 6 }, (_, i) => ({
        ...row,
        serial_first: serial(row.serial_first),
        serial_last: serial(row.serial_last),
        id: randomUUID(),
        created_at: new Date(base + Math.floor(i / 3) * 1000).toISOString(),
      }));
      for (let start = 0; start < copies.length; start += 100)
        await db
          .insertInto('authorizations')
          .values(copies.slice(start, start + 100))
          .execute();
      const expected = async () =>
        (
          await db
            .selectFrom('authorizations')
            .select('id')
            .where('order_id', '=', orderId)
            .orderBy('created_at')
            .orderBy('id')
            .execute()
        ).map((r) => r.id);
      /** Every page of the order's detail, each with the exact total. */
      const pages = async (total: number) => {
        const ids: string[] = [];
        for (let pageNum = 1; ; pageNum += 1) {
          const page = (
            await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}&numberOfItems=100&pageNum=${pageNum}`, {
              token: await ctx().adminToken(),
            })
          ).json<TOrderDetail>().authorizations;
          expect(page).toMatchObject({ totalNumOfItems: total, totalNumOfPages: Math.ceil(total / 100) });
          if (page.data.length === 0) return ids;
          ids.push(...page.data.map((a) => a.authorizationId));
        }
      };
      expect(await pages(copies.length + 1)).toEqual(await expected());
      const later = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
      const after = await pages(copies.length + 2);
      expect(after).toEqual(await expected());
      expect(after.at(-1)).toBe(later);
    });

    it('answers the quantity tokens', async () => {
      const orderId = await addOrder(ctx(), policyFor(world, { quantity: 3 }));
      const base = { orderId, deviceId: world.deviceId };
      expectToken(await call('/ui/authorization/authorize', base), 420, 'quantityIsRequired');
      expectToken(await call('/ui/authorization/authorize', { ...base, quantity: 0 }), 420, 'quantityMustBeGreaterThanZero');
      expectToken(await call('/ui/authorization/authorize', { ...base, quantity: 4 }), 420, 'quantityExceedsAllottedAmount');
      await authorize(ctx(), { ...base, quantity: 3 });
      expectToken(await call('/ui/authorization/authorize', { ...base, quantity: 1 }), 420, 'orderHasNoMoreQuantity');
      expectToken(await call('/ui/authorization/authorize', { deviceId: world.deviceId, quantity: 1 }), 420, 'orderIdNotValid');
      expectToken(
        await call('/ui/authorization/authorize', { orderId: uuid, deviceId: world.deviceId, quantity: 1 }),
        420,
        'orderIdNotValid',
      );
      const failures = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select('details')
        .where('event_type', '=', 'licenceAuthorizationFailed')
        .where('subject', '=', orderId)
        .execute();
      expect(failures.map((f) => (JSON.parse(f.details!) as { tokens: string[] }).tokens[0])).toEqual([
        'quantityIsRequired',
        'quantityMustBeGreaterThanZero',
        'quantityExceedsAllottedAmount',
        'orderHasNoMoreQuantity',
      ]);
    });

    it('answers the expiry tokens', async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      const order = await fetchOrder(orderId);
      const base = { orderId, deviceId: world.deviceId, quantity: 1 };
      expectToken(
        await call('/ui/authorization/authorize', { ...base, expiration: Date.now() - 1000 }),
        420,
        'expirationDateInThePast',
      );
      expectToken(
        await call('/ui/authorization/authorize', { ...base, expiration: Date.parse(order.expiration!) + 1000 }),
        420,
        'expirationDateIsAfterParentExpirationDate',
      );
      await ctx()
        .app.services.database.db.updateTable('orders')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', orderId)
        .execute();
      expectToken(await call('/ui/authorization/authorize', base), 420, 'orderHasExpired');
    });

    it('answers the target tokens for machines and Manage instances', async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      const base = { orderId, quantity: 1 };
      expectToken(await call('/ui/authorization/authorize', base), 420, 'deviceOrManageIdNotProvided');
      expectToken(
        await call('/ui/authorization/authorize', { ...base, deviceId: world.deviceId, manageId: uuid }),
        420,
        'deviceOrManageIdNotProvided',
      );
      expectToken(await call('/ui/authorization/authorize', { ...base, deviceId: uuid }), 420, 'deviceIdNotValid');
      expectToken(await call('/ui/authorization/authorize', { ...base, manageId: uuid }), 420, 'manageIdNotValid');
      expectToken(
        await call('/ui/authorization/authorize', {
          ...base,
          manageId: await manageInstance(ctx(), 'upStreamManage', 'Approved'),
        }),
        420,
        'cannotSendAuthorizationsToUpstreamManageInstances',
      );
      expectToken(
        await call('/ui/authorization/authorize', {
          ...base,
          manageId: await manageInstance(ctx(), 'downStreamManage', 'Pending'),
        }),
        420,
        'manageInstaceNotApproved',
      );
      const downstream = await manageInstance(ctx(), 'downStreamManage', 'Approved');
      const toPeer = await authorize(ctx(), { ...base, manageId: downstream });
      expect((await fetchOrder(orderId)).authorizations.data.find((a) => a.id === toPeer)).toMatchObject({
        type: 'manage',
        manageId: downstream,
      });

      const { deviceId: disabled } = await registerApprovedMachine(ctx(), world.root);
      expect((await call('/ui/device/disable', { deviceId: disabled })).statusCode).toBe(200);
      expectToken(await call('/ui/authorization/authorize', { ...base, deviceId: disabled }), 420, 'deviceNotApproved');
    });

    it('checks the machine identity the order names, field by field', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, {
          deviceIdentity: { manufacturer: 'Other Corp', model: 'Z9', family: 'X', technology: 'SLA', deviceClass: 'printer' },
          parameterVersion: '2.0',
        }),
      );
      const errors = expectTokens(await call('/ui/authorization/authorize', { orderId, deviceId: world.deviceId, quantity: 1 }));
      expect(errors.map((e) => e.errorToken).sort()).toEqual(
        [
          'deviceNotValidForAuthorization',
          'invalidDeviceManufacturer',
          'invalidDeviceManufacturingInfo',
          'invalidDeviceModel',
          'invalidDeviceTechnology',
        ].sort(),
      );
      const wrongName = await addOrder(
        ctx(),
        policyFor(world, { deviceIdentity: { name: 'Someone else', serialNumber: 'nope', deviceClass: 'mill', family: 'Q' } }),
      );
      const more = expectTokens(
        await call('/ui/authorization/authorize', { orderId: wrongName, deviceId: world.deviceId, quantity: 1 }),
      );
      expect(more.map((e) => e.errorToken).sort()).toEqual(
        [
          'deviceNotValidForAuthorization',
          'invalidDeviceFamily',
          'invalidDeviceMachineClass',
          'invalidDeviceMachineName',
          'invalidDeviceSerialNumber',
        ].sort(),
      );
      const matching = await addOrder(
        ctx(),
        policyFor(world, { deviceIdentity: { manufacturer: 'acme', model: 'x1' }, parameterVersion: '1.0' }),
      );
      await authorize(ctx(), { orderId: matching, deviceId: world.deviceId, quantity: 1 });
    });

    it('answers every parameter rule with its invalid… token, all problems of one request together', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, {
          deviceParameters: [
            { parameterId: 'bedTemperature', type: 'integer', low: 55, high: 90, resetValue: 60, adjust: 'FREE', required: true },
            {
              parameterId: 'material',
              type: 'choice',
              choicePresent: true,
              choiceList: ['PLA', 'PETG'],
              valueList: ['PLA'],
              required: true,
              exclusive: true,
            },
          ],
          qualityParameters: [{ id: 'weight', type: 'decimal', low: 10, high: 12, required: true, resetValue: 11 }],
        }),
      );
      const errors = expectTokens(
        await call('/ui/authorization/authorize', {
          orderId,
          deviceId: world.deviceId,
          quantity: 1,
          deviceParameters: [
            { parameterId: 'bedTemperature', type: 'integer', low: 40, high: 95, resetValue: 100, required: true },
            {
              parameterId: 'material',
              type: 'choice',
              choicePresent: true,
              choiceList: ['PLA', 'ABS'],
              valueList: ['ABS'],
              required: true,
              exclusive: true,
            },
            { parameterId: 'layerHeight', type: 'decimal', valueList: [0.2], adjust: 'LOCK', exclusive: true },
            { parameterId: 'ghost', type: 'string' },
          ],
          qualityParameters: [{ id: 'weight', type: 'decimal', low: 9, high: 12, required: true, resetValue: 11 }],
          tracking: [
            { fieldName: 'batch', fieldValue: '1' },
            { fieldName: 'batch', fieldValue: '2' },
          ],
          authorizedUserList: ['no-such-user'],
        }),
      );
      const pairs = errors.map((e) => `${e.errorToken} ${e.field}`);
      expect(pairs).toEqual(
        expect.arrayContaining([
          'invalidRangeExpandsPreviousRange deviceParameters.bedTemperature.low',
          'invalidRangeExpandsPreviousRange deviceParameters.bedTemperature.high',
          'invalidValueOutOfRange deviceParameters.bedTemperature.resetValue',
          'parameterBroadensPreexistingParameterSetByOrder deviceParameters.material.choiceList',
          'invalidValueNotFoundInChoiceList deviceParameters.material.valueList[0]',
          'parameterValueNotEqualToPreexistingParameterValue deviceParameters.layerHeight.valueList[0]',
          'invalidValueInput deviceParameters.ghost',
          'invalidRangeExpandsPreviousRange qualityParameters.weight.low',
          'trackingFieldDuplicate tracking[1].fieldName',
          'userNotPresent authorizedUserList[0]',
        ]),
      );
      // a required parameter of the order that carries no value and is not narrowed
      const bare = await addOrder(
        ctx(),
        policyFor(world, { deviceParameters: [{ parameterId: 'operatorNote', type: 'string', required: true }] }),
      );
      const missing = expectToken(
        await call('/ui/authorization/authorize', { orderId: bare, deviceId: world.deviceId, quantity: 1 }),
        420,
        'authorizationMissingRequiredDeviceParameters',
      );
      expect(missing.field).toBe('deviceParameters.operatorNote.valueList');
      const typed = expectTokens(
        await call('/ui/authorization/authorize', {
          orderId: bare,
          deviceId: world.deviceId,
          quantity: 1,
          deviceParameters: [
            { parameterId: 'operatorNote', type: 'string', required: true, valueList: ['a', 'b'], exclusive: true },
            { parameterId: 'supports', type: 'integer', resetValue: 1 },
          ],
        }),
      );
      expect(typed.map((e) => e.errorToken)).toEqual(
        expect.arrayContaining([
          'invalidValueExclusiveAllowsOnlyOneValue',
          'parameterDataTypeNotEqualToPreexistingParameterDataType',
        ]),
      );
      // narrowing inside every bound is accepted
      await authorize(ctx(), {
        orderId,
        deviceId: world.deviceId,
        quantity: 1,
        deviceParameters: [
          {
            parameterId: 'bedTemperature',
            type: 'integer',
            low: 60,
            high: 80,
            resetValue: 70,
            adjust: 'INCREASE',
            required: true,
          },
        ],
        qualityParameters: [{ id: 'weight', type: 'decimal', low: 10.5, high: 11.5, required: true, resetValue: 11 }],
      });
    });

    it('answers the serialization tokens, and authorized users must be on the order', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, { quantity: 10, serialization: { type: 'Hex', start: 0, end: 9 }, authorizedUserList: ['admin'] }),
      );
      const user = await ctx().createUser();
      expectToken(
        await call('/ui/authorization/authorize', {
          orderId,
          deviceId: world.deviceId,
          quantity: 1,
          authorizedUserList: [user.profile.username],
        }),
        420,
        'authorizedUserNotInOrder',
      );
      await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 2 });
      const db = ctx().app.services.database.db;
      // numbers handed out elsewhere (a range shared with another instance) leave fewer than the quantity
      await db.updateTable('orders').set({ serial_next: 8 }).where('id', '=', orderId).execute();
      expectToken(
        await call('/ui/authorization/authorize', { orderId, deviceId: world.deviceId, quantity: 3 }),
        420,
        'serializationDoesNotHaveEnoughNumbersForQuantity',
      );
      await db.updateTable('orders').set({ serial_next: 10 }).where('id', '=', orderId).execute();
      expectToken(
        await call('/ui/authorization/authorize', { orderId, deviceId: world.deviceId, quantity: 1 }),
        420,
        'serializationOutOfNumbers',
      );
      await db.updateTable('orders').set({ serial_type: 'Oct' }).where('id', '=', orderId).execute();
      expectToken(
        await call('/ui/authorization/authorize', { orderId, deviceId: world.deviceId, quantity: 1 }),
        420,
        'serializationHasError',
      );
      expect((await fetchOrder(orderId)).allocatedQuantity).toBe(2);
    });

    it('gives exactly the order quantity to 50 simultaneous requests of 1 on an order of 10', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, { quantity: 10, serialization: { type: 'Dec', start: 1, end: 1000 } }),
      );
      const token = await ctx().adminToken();
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, deviceId: world.deviceId, quantity: 1 } }),
        ),
      );
      const ok = responses.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(10);
      for (const refused of responses.filter((r) => r.statusCode !== 200)) {
        expect(refused.statusCode, refused.body).toBe(420);
        expect(['orderHasNoMoreQuantity', 'quantityExceedsAllottedAmount']).toContain(
          refused.json<{ errorToken: string }>().errorToken,
        );
      }
      const order = await fetchOrder(orderId);
      expect(order).toMatchObject({ allocatedQuantity: 10, remainingQuantity: 0 });
      const serials = order.authorizations.data.map((a) => a.serialNumbers!.first).sort((x, y) => Number(x) - Number(y));
      expect(serials).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 1)));
    });

    it('serves simultaneous requests of different sizes that together exceed the order exactly as far as it goes', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, { quantity: 20, serialization: { type: 'Dec', start: 101, end: 1000 } }),
      );
      const token = await ctx().adminToken();
      const sizes = [3, 5, 2, 7, 4, 1, 6, 2, 3, 5];
      const responses = await Promise.all(
        sizes.map((quantity) =>
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, deviceId: world.deviceId, quantity } }),
        ),
      );
      for (const refused of responses.filter((r) => r.statusCode !== 200)) {
        expect(refused.statusCode, refused.body).toBe(420);
      }
      expectExactBooks(await fetchOrder(orderId), {
        quantity: 20,
        firstSerial: 101,
        sizes,
        statuses: responses.map((r) => r.statusCode),
      });
    });

    it('never leaves an authorization for a machine deleted while it was made; the batch it shared still goes', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      const orderId = await addOrder(ctx(), policyFor(world, { quantity: 1000 }));
      const rounds = 20;
      for (let round = 0; round < rounds; round += 1) {
        const { deviceId } = await registerApprovedMachine(ctx(), world.root);
        const [toDeleted, toKept, deleted] = await Promise.all([
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, deviceId, quantity: 1 } }),
          // a request of the same order for a machine that stays: taken in the same batch
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, deviceId: world.deviceId, quantity: 1 } }),
          ctx().call('POST', '/ui/device/delete', { token, body: { deviceId, forceDelete: false } }),
        ]);
        expect(toKept.statusCode, toKept.body).toBe(200);
        const machine = await db.selectFrom('devices').select('id').where('id', '=', deviceId).executeTakeFirst();
        if (toDeleted.statusCode === 200) {
          // the authorization came first: the machine holds it and stays
          expectToken(deleted, 420, 'deviceHasLiveAuthorizations', 'forceDelete');
          expect(machine).toBeDefined();
        } else {
          // the delete came first: the machine is gone, and so is the request for it
          expectToken(toDeleted, 420, 'deviceIdNotValid', 'deviceId');
          expect(deleted.statusCode, deleted.body).toBe(200);
          expect(machine).toBeUndefined();
        }
      }
      const orphans = await db
        .selectFrom('authorizations')
        .leftJoin('devices', 'devices.id', 'authorizations.device_id')
        .select('authorizations.id')
        .where('authorizations.order_id', '=', orderId)
        .where('devices.id', 'is', null)
        .execute();
      expect(orphans).toEqual([]);
      const references = await db
        .selectFrom('entity_references')
        .leftJoin('devices', 'devices.id', 'entity_references.target_id')
        .select('entity_references.referrer_id')
        .where('entity_references.target_kind', '=', 'device')
        .where('entity_references.released_at', 'is', null)
        .where('devices.id', 'is', null)
        .execute();
      expect(references).toEqual([]);
      // every authorization granted is in the order's books
      const order = await fetchOrder(orderId);
      expect(order.allocatedQuantity).toBe(
        Number(
          (
            await db
              .selectFrom('authorizations')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('order_id', '=', orderId)
              .executeTakeFirstOrThrow()
          ).n,
        ),
      );
    });

    it('never leaves an authorization for a downstream Manage instance deleted or cancelled while it was made', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      const orderId = await addOrder(ctx(), policyFor(world, { quantity: 1000 }));
      const rounds = 20;
      for (let round = 0; round < rounds; round += 1) {
        // an instance no authorization names yet is deleted; one that is named stays, Cancelled
        const named = round % 2 === 1;
        const peer = await manageInstance(ctx(), 'downStreamManage', 'Approved');
        if (named) await authorize(ctx(), { orderId, manageId: peer, quantity: 1 });
        const [toPeer, toKept, deleted] = await Promise.all([
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, manageId: peer, quantity: 1 } }),
          ctx().call('POST', '/ui/authorization/authorize', { token, body: { orderId, deviceId: world.deviceId, quantity: 1 } }),
          ctx().call('POST', '/ui/manage/delete', { token, body: { id: peer } }),
        ]);
        expect(toKept.statusCode, toKept.body).toBe(200);
        expect(deleted.statusCode, deleted.body).toBe(200);
        const row = await db
          .selectFrom('manage_instances')
          .select(['registration_state', 'updated_at'])
          .where('id', '=', peer)
          .executeTakeFirst();
        if (toPeer.statusCode === 200) {
          // the authorization came first: the instance is named, so it stays, Cancelled after it
          expect(row?.registration_state).toBe('Cancelled');
          const made = await db
            .selectFrom('authorizations')
            .select('created_at')
            .where('id', '=', toPeer.json<{ authorizationId: string }>().authorizationId)
            .executeTakeFirstOrThrow();
          expect(made.created_at <= row!.updated_at, `${made.created_at} after the cancel at ${row!.updated_at}`).toBe(true);
        } else if (named) {
          expectToken(toPeer, 420, 'manageInstaceNotApproved', 'manageId');
          expect(row?.registration_state).toBe('Cancelled');
        } else {
          expectToken(toPeer, 420, 'manageIdNotValid', 'manageId');
          expect(row).toBeUndefined();
        }
      }
      const orphans = await db
        .selectFrom('authorizations')
        .leftJoin('manage_instances', 'manage_instances.id', 'authorizations.manage_id')
        .select('authorizations.id')
        .where('authorizations.order_id', '=', orderId)
        .where('authorizations.target_kind', '=', 'manage')
        .where('manage_instances.id', 'is', null)
        .execute();
      expect(orphans).toEqual([]);
    });
  });

  describe('GET /ui/authorization/list', () => {
    it('pages, sorts and filters, by order and by authorization', async () => {
      const token = await ctx().adminToken();
      const company = `Auth ${Math.random().toString(36).slice(2, 7)}`;
      const orderId = await addOrder(ctx(), policyFor(world, { companyName: company }));
      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) ids.push(await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 }));
      const list = async (query: string) =>
        (await ctx().call('GET', `/ui/authorization/list?${query}`, { token })).json<TPage<TAuthorization>>();
      const page = await list(`orderId=${orderId}&numberOfItems=3`);
      expect(page).toMatchObject({ totalNumOfItems: 4, totalNumOfPages: 2 });
      expect([
        ...page.data.map((a) => a.id),
        ...(await list(`orderId=${orderId}&numberOfItems=3&pageNum=2`)).data.map((a) => a.id),
      ]).toEqual([...ids].sort());
      expect(
        (await list(`filterByCompanyName=${encodeURIComponent(company)}&sortBy=dateCreated&sortOrder=desc`)).data.map(
          (a) => a.id,
        ),
      ).toEqual([...ids].reverse());
      expect((await list(`authorizationId=${ids[2]}`)).data.map((a) => a.id)).toEqual([ids[2]]);
      expect((await list(`orderId=${orderId}&filterByArchived=true`)).totalNumOfItems).toBe(0);
    });
  });

  describe('POST /ui/authorization/send and /revoke, GET /download', () => {
    it('sends one or all, refusing what cannot go, and revokes once returning quantity', async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      expectToken(await call('/ui/authorization/send', { orderId }), 420, 'orderHasNoAuthorizations');
      const one = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 2 });
      const two = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 3 });
      expectToken(
        await call('/ui/authorization/send', { orderId, authorizationId: uuid }),
        420,
        'invalidOrderAndAuthorizationIdCombination',
      );
      const other = await addOrder(ctx(), policyFor(world));
      expectToken(
        await call('/ui/authorization/send', { orderId: other, authorizationId: one }),
        420,
        'invalidOrderAndAuthorizationIdCombination',
      );

      const single = await call('/ui/authorization/send', { orderId, authorizationId: one, sendAll: null });
      expect(single.json()).toEqual({ data: [{ authorizationId: one, state: 'sent', delivery: null }] });
      const all = await call('/ui/authorization/send', { orderId });
      expect(
        all.json<{ data: { authorizationId: string; state: string }[] }>().data.map((d) => [d.authorizationId, d.state]),
      ).toEqual([
        [one, 'sent'],
        [two, 'sent'],
      ]);

      const revoked = await call('/ui/authorization/revoke', { orderId, authorizationId: two });
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.json<TAuthorization>()).toMatchObject({ state: 'revoked' });
      expect((await fetchOrder(orderId)).remainingQuantity).toBe(8);
      expectToken(await call('/ui/authorization/revoke', { orderId, authorizationId: two }), 420, 'authorizationAlreadyRevoked');
      expectToken(
        await call('/ui/authorization/revoke', { orderId: other, authorizationId: one }),
        420,
        'invalidOrderAndAuthorizationIdCombination',
      );
      expectToken(await call('/ui/authorization/send', { orderId, authorizationId: two }), 420, 'sendingAuthorizationFailed');
      // send all leaves the revoked ones out, the rest go
      expect(
        (await call('/ui/authorization/send', { orderId, sendAll: true, authorizationId: one })).json<{ data: unknown[] }>().data,
      ).toHaveLength(1);

      const { deviceId: laterDisabled } = await registerApprovedMachine(ctx(), world.root);
      const three = await authorize(ctx(), { orderId, deviceId: laterDisabled, quantity: 1 });
      expect((await call('/ui/device/disable', { deviceId: laterDisabled })).statusCode).toBe(200);
      expectToken(await call('/ui/authorization/send', { orderId, authorizationId: three }), 420, 'sendingAuthorizationFailed');
      const history = (await fetchOrder(orderId)).history.map((h) => h.eventType);
      expect(history.filter((t) => t === 'licenceSent')).toHaveLength(2);
      expect(history).toContain('licenceRevoked');
    });

    it('sends all the live ones past an expired one, which alone is refused; all expired refuses the order', async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      const expired = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
      const sentThenExpired = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
      const live = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
      expect((await call('/ui/authorization/send', { orderId, authorizationId: sentThenExpired })).statusCode).toBe(200);
      const db = ctx().app.services.database.db;
      const expire = (ids: string[]) =>
        db
          .updateTable('authorizations')
          .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('id', 'in', ids)
          .execute();
      await expire([expired, sentThenExpired]);

      const all = await call('/ui/authorization/send', { orderId });
      expect(all.statusCode, all.body).toBe(200);
      expect(all.json()).toEqual({ data: [{ authorizationId: live, state: 'sent', delivery: null }] });
      const states = await db.selectFrom('authorizations').select(['id', 'state']).where('order_id', '=', orderId).execute();
      expect(Object.fromEntries(states.map((row) => [row.id, row.state]))).toEqual({
        [expired]: 'authorized',
        [sentThenExpired]: 'sent',
        [live]: 'sent',
      });
      expectToken(
        await call('/ui/authorization/send', { orderId, authorizationId: expired }),
        420,
        'sendingAuthorizationFailed',
        `authorizations.${expired}`,
      );

      await expire([live]);
      const none = expectToken(
        await call('/ui/authorization/send', { orderId, sendAll: true }),
        420,
        'sendingAuthorizationFailed',
        'orderId',
      );
      expect(none.errorDescription).toBe('Every authorization of the order is revoked or expired');
    });

    it('queues authorizations for downstream Manage instances; revoking a delivered one queues its revocation', async () => {
      const orderId = await addOrder(ctx(), policyFor(world));
      const downstream = await manageInstance(ctx(), 'downStreamManage', 'Approved');
      const db = ctx().app.services.database.db;
      const pending = await authorize(ctx(), { orderId, manageId: downstream, quantity: 1 });
      const delivered = await authorize(ctx(), { orderId, manageId: downstream, quantity: 1 });
      const assigned = await authorize(ctx(), { orderId, manageId: downstream, quantity: 1 });
      const blocked = await authorize(ctx(), { orderId, manageId: downstream, quantity: 1 });
      const sent = await call('/ui/authorization/send', { orderId });
      expect(sent.json<{ data: { delivery: string }[] }>().data.map((d) => d.delivery)).toEqual(Array(4).fill('pending'));
      const outbox = await db
        .selectFrom('outbox')
        .selectAll()
        .where('subject_id', 'in', [pending, delivered, assigned, blocked])
        .execute();
      expect(outbox.map((row) => [row.kind, row.state, row.target_id, row.attempts])).toEqual(
        Array(4).fill(['authorization', 'pending', downstream, 0]),
      );
      // each message is due at once, leased by no delivery worker yet
      for (const row of outbox) {
        expect([row.next_attempt_at, row.lease_owner, row.lease_until]).toEqual([row.created_at, null, null]);
      }

      // what the delivery records once the downstream instance acknowledged (and assigned) them
      await db
        .updateTable('outbox')
        .set({ state: 'delivered' })
        .where('subject_id', 'in', [delivered, assigned, blocked])
        .execute();
      await db
        .updateTable('authorizations')
        .set({ downstream_device_id: 'their-printer-7' })
        .where('id', '=', assigned)
        .execute();
      expect((await call('/ui/authorization/revoke', { orderId, authorizationId: delivered })).statusCode).toBe(200);
      const revocation = await db
        .selectFrom('outbox')
        .selectAll()
        .where('subject_id', '=', delivered)
        .where('kind', '=', 'revocation')
        .executeTakeFirstOrThrow();
      expect([revocation.state, revocation.target_id, JSON.parse(revocation.payload)]).toEqual([
        'pending',
        downstream,
        { authorizationId: delivered, reason: 'The authorization was revoked upstream' },
      ]);
      expectToken(
        await call('/ui/authorization/revoke', { orderId, authorizationId: assigned }),
        420,
        'authorizationAssignedToDownstreamDevice',
      );
      await db.updateTable('manage_instances').set({ registration_state: 'Suspended' }).where('id', '=', downstream).execute();
      expectToken(await call('/ui/authorization/revoke', { orderId, authorizationId: blocked }), 420, 'unableToRevokeDownstream');
      const whole = await call('/ui/order/revoke', { orderId, includeAuthorized: true });
      expect(whole.statusCode).toBe(420);
      expect(['unableToRevokeDownstream', 'authorizationAssignedToDownstreamDevice']).toContain(
        whole.json<{ errorToken: string }>().errorToken,
      );
      expect((await fetchOrder(orderId)).revoked).toBe(false);
      expect((await call('/ui/authorization/revoke', { orderId, authorizationId: pending })).statusCode).toBe(200);
      const cancelled = await db
        .selectFrom('outbox')
        .select('state')
        .where('subject_id', '=', pending)
        .where('kind', '=', 'authorization')
        .executeTakeFirstOrThrow();
      expect(cancelled.state).toBe('cancelled');
    });

    it('downloads the signed XML with the design digest and content keys only the machine can unwrap', async () => {
      const orderId = await addOrder(
        ctx(),
        policyFor(world, { serialization: { type: 'Dec', start: 1, end: 100 }, purpose: 'Parts <&> "fun"' }),
      );
      const authorizationId = await authorize(ctx(), {
        orderId,
        deviceId: world.deviceId,
        quantity: 2,
        // every kind of character XML can carry, up to the edges: the strict parser of xmlsec1 reads them all
        tracking: [
          { fieldName: 'lot', fieldValue: 'a<b&c' },
          { fieldName: 'edges', fieldValue: '\t\n\u00a0\ud7ff\ue000\ufffd\u{10000}😀\u{10ffff}' },
        ],
      });
      const response = await ctx().call(
        'GET',
        `/ui/authorization/download?orderId=${orderId}&authorizationId=${authorizationId}`,
        {
          token: await ctx().adminToken(),
        },
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/xml/);
      const signingPem = (await ctx().app.services.credentials.signingIdentity()).certificatePem;
      const { element } = verifyXmlSignature(response.body, signingPem);
      const text = (name: string) => element.getElementsByTagName(name).item(0)?.textContent;
      expect(text('AuthorizationId')).toBe(authorizationId);
      expect(text('OrderId')).toBe(orderId);
      expect(text('Quantity')).toBe('2');
      expect(text('Purpose')).toBe('Parts <&> "fun"');
      expect(text('DigestValue')).toBe(world.revision.digestValue);
      expect(element.getElementsByTagName('Field').item(0)?.textContent).toBe('a<b&c');
      expect(element.getElementsByTagName('Field').item(1)?.textContent).toBe(
        '\t\n\u00a0\ud7ff\ue000\ufffd\u{10000}😀\u{10ffff}',
      );
      expect(element.getElementsByTagName('SerialNumbers').item(0)?.getAttribute('first')).toBe('1');
      expect(element.getElementsByTagName('DeviceIdentity').item(0)?.getAttribute('serialNumber')).toBe(
        world.machine.apl.deviceIdentity.serialNumber,
      );
      const files = Array.from({ length: element.getElementsByTagName('File').length }, (_, i) =>
        element.getElementsByTagName('File').item(i)!,
      );
      const privateFile = files.find((f) => f.getAttribute('fileId') === world.privateFile.fileId)!;
      const publicFile = files.find((f) => f.getAttribute('fileId') === world.publicFile.fileId)!;
      expect(publicFile.getElementsByTagName('WrappedKey').length).toBe(0);
      const wrapped = privateFile.getElementsByTagName('WrappedKey').item(0)!.textContent!;
      const key = await unwrapContentKey(wrapped, world.machine.encryptionKeyPem);
      expect(key).toHaveLength(32);
      await expect(unwrapContentKey(wrapped, world.machine.signingKeyPem)).rejects.toThrow();

      const verified = withTempFiles({ 'root.pem': world.root.certificatePem, 'authorization.xml': response.body }, (paths) =>
        runTool('xmlsec1', ['--verify', '--trusted-pem', pathOf(paths, 'root.pem'), pathOf(paths, 'authorization.xml')]),
      );
      expect(verified.status, verified.stderr).toBe(0);
      const tampered = withTempFiles(
        { 'root.pem': world.root.certificatePem, 'authorization.xml': response.body.replace('<Quantity>2<', '<Quantity>9<') },
        (paths) =>
          runTool('xmlsec1', ['--verify', '--trusted-pem', pathOf(paths, 'root.pem'), pathOf(paths, 'authorization.xml')]),
      );
      expect(tampered.status).not.toBe(0);

      // the stored private file decrypts with that key
      const row = await ctx()
        .app.services.database.db.selectFrom('revision_files')
        .select('storage_key')
        .where('file_id', '=', world.privateFile.fileId)
        .executeTakeFirstOrThrow();
      const chunks: Buffer[] = [];
      for await (const chunk of await ctx().app.services.storage.get(row.storage_key)) chunks.push(chunk as Buffer);
      expect(decryptContent(Buffer.concat(chunks), key).equals(world.privateFile.bytes)).toBe(true);

      expect((await call('/ui/authorization/revoke', { orderId, authorizationId })).statusCode).toBe(200);
      expectToken(
        await ctx().call('GET', `/ui/authorization/download?orderId=${orderId}&authorizationId=${authorizationId}`, {
          token: await ctx().adminToken(),
        }),
        420,
        'authorizationAlreadyRevoked',
      );
    });
  });
});
