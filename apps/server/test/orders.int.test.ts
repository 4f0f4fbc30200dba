import { describe, expect, it } from 'vitest';
import type { TOrder, TOrderDetail, TPage } from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { addOrder, policyFor, suiteLicensingWorld } from './helpers/licensing-fixtures.js';
import { uploadForm } from './helpers/packages-fixtures.js';
import { countRows, describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';
import { peerIdentity } from './helpers/test-pki.js';

const uuid = '00000000-0000-4000-8000-000000000000';
const POLICY = 'authorizationAuthorizedPolicyList';

describeEachDatabase('orders', (ctx) => {
  const world = suiteLicensingWorld(ctx);

  const add = async (policy: unknown, token?: string) =>
    ctx().call('POST', '/ui/order/add', { token: token ?? (await ctx().adminToken()), body: { [POLICY]: policy } });
  const fetchOrder = async (orderId: string, token?: string) =>
    ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token: token ?? (await ctx().adminToken()) });

  describe('every order endpoint', () => {
    it('should require authentication', async () => {
      for (const url of [
        '/ui/order/list',
        `/ui/order/fetch?orderId=${uuid}`,
        '/ui/order/policy-schema',
        '/ui/admin/order-senders',
      ])
        expectToken(await ctx().call('GET', url), 401, 'invalidSessionToken');
      for (const url of [
        '/ui/order/add',
        '/ui/order/upload',
        '/ui/order/archive',
        '/ui/order/restore',
        '/ui/order/revoke',
        '/ui/order/edit-groups',
        '/ui/admin/order-senders',
        '/ui/admin/order-senders/delete',
      ])
        expectToken(await ctx().call('POST', url, { body: {} }), 401, 'invalidSessionToken');
    });

    it('lets both roles work with orders; grouping orders and trusting senders are for ADMIN', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('GET', '/ui/order/list', { token })).statusCode).toBe(200);
      expectToken(
        await ctx().call('POST', '/ui/order/edit-groups', { token, body: { orderId: uuid, groupIds: [] } }),
        403,
        'actionNotAllowed',
      );
      expectToken(await ctx().call('GET', '/ui/admin/order-senders', { token }), 403, 'actionNotAllowed');
      expectToken(
        await ctx().call('POST', '/ui/admin/order-senders', { token, body: { certificate: 'x' } }),
        403,
        'actionNotAllowed',
      );
      expectToken(
        await ctx().call('POST', '/ui/admin/order-senders/delete', { token, body: { fingerprint: 'AA' } }),
        403,
        'actionNotAllowed',
      );
    });

    it('publishes the policy list JSON schema', async () => {
      const published = (await ctx().call('GET', '/ui/order/policy-schema', { token: await ctx().adminToken() })).json<{
        $ref: string;
        $defs: Record<string, { title: string; properties: Record<string, unknown>; required: string[] }>;
      }>();
      expect(published.$ref).toBe('#/$defs/AuthorizedPolicyList');
      const schema = published.$defs.AuthorizedPolicyList!;
      expect(schema.title).toBe('Manifold authorized policy list');
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(['design', 'keyRoles', 'quantity', 'serialization', 'breakage']),
      );
      expect(schema.required).toEqual(expect.arrayContaining(['orderNumber', 'design', 'keyRoles', 'quantity']));
    });
  });

  describe('POST /ui/order/add', () => {
    it('adds an order mapped to a built revision, with the fields of spec §3 and a history', async () => {
      const policy = policyFor(world, {
        serialization: { type: 'Hex', prefix: 'SN-', start: 255, end: 1000 },
        breakage: { policy: 'Percentage', value: 5 },
        deviceIdentity: { manufacturer: 'Acme' },
        parameterVersion: '1.0',
        authorizedUserList: ['admin'],
      });
      const orderId = await addOrder(ctx(), policy);
      const order = (await fetchOrder(orderId)).json<TOrderDetail>();
      expect(order).toMatchObject({
        orderIdentity: { orderId, authorizationId: null },
        orderId,
        version: 1,
        companyName: 'Acme Designs',
        sourceCompanyName: 'Acme Designs',
        dsi: { dsiId: world.revision.dsiId, dsiVersion: world.revision.dsiVersion, revisionId: world.revision.revisionId },
        quantity: 10,
        expiredQuantity: 0,
        remainingQuantity: 10,
        digestMethod: 'SHA-256',
        digestValue: world.revision.digestValue,
        licenseeKeySN: world.licenseeSerial.toLowerCase().replace(/^0+/, ''),
        keyRoleSN: 'a1b2c',
        userID: 'admin',
        orderNumber: policy.orderNumber,
        archive: false,
        revoked: false,
        downstreamDevice: false,
        breakage: { policy: 'Percentage', value: 5 },
        serialization: { type: 'Hex', prefix: 'SN-', start: 255, end: 1000, next: 255 },
        deviceIdentity: { manufacturer: 'Acme' },
        authorizedUserList: ['admin'],
        source: 'ui',
        authorizations: { data: [], pageNum: 1, numberOfItems: 10, totalNumOfPages: 0, totalNumOfItems: 0 },
      });
      expect(order.history.map((entry) => entry.eventType)).toEqual(['licenceReceived']);
      expect(order.historyTruncated).toBe(false);
      const reference = await ctx()
        .app.services.database.db.selectFrom('entity_references')
        .selectAll()
        .where('referrer_id', '=', orderId)
        .executeTakeFirstOrThrow();
      expect(reference).toMatchObject({ target_kind: 'package', target_id: world.revision.dsiId, released_at: null });
      expectToken(
        await ctx().call('POST', '/ui/package/delete', {
          token: await ctx().adminToken(),
          body: { dsiId: world.revision.dsiId },
        }),
        420,
        'packageReferencedByOrders',
      );
    });

    it('answers authorizedPolicyListNotFormattedCorrectly for each malformed field at once', async () => {
      expectToken(await add(undefined), 420, 'authorizedPolicyListNotFormattedCorrectly');
      const { design: _design, ...noDesign } = policyFor(world);
      const errors = expectTokens(await add({ ...noDesign, quantity: 'many' }));
      expect(errors.map((e) => [e.errorToken, e.field]).sort()).toEqual([
        ['authorizedPolicyListNotFormattedCorrectly', `${POLICY}.design`],
        ['authorizedPolicyListNotFormattedCorrectly', `${POLICY}.quantity`],
      ]);
    });

    it('answers authorizedPolicyListUnknownKeyRole and authorizedPolicyLicenseeRoleMismatch', async () => {
      const unknown = expectToken(
        await add(
          policyFor(world, {
            keyRoles: [
              { role: 'licensee', keySerialNumber: world.licenseeSerial },
              { role: 'janitor', keySerialNumber: '01' },
            ],
          }),
        ),
        420,
        'authorizedPolicyListUnknownKeyRole',
      );
      expect(unknown.field).toBe(`${POLICY}.keyRoles[1].role`);
      expectToken(
        await add(policyFor(world, { keyRoles: [{ role: 'licensee', keySerialNumber: 'ABCDEF01' }] })),
        420,
        'authorizedPolicyLicenseeRoleMismatch',
      );
      expectToken(
        await add(policyFor(world, { keyRoles: [{ role: 'licensor', keySerialNumber: '01' }] })),
        420,
        'authorizedPolicyLicenseeRoleMismatch',
      );
    });

    it('answers authorizedPolicyListInvalid for rules between fields, together', async () => {
      const errors = expectTokens(
        await add(
          policyFor(world, {
            expiration: new Date(Date.now() - 60_000).toISOString(),
            serialization: { type: 'Dec', start: 10, end: 14 },
            breakage: { policy: 'Strict', value: 3 },
          }),
        ),
      );
      expect(errors.map((e) => [e.errorToken, e.field]).sort()).toEqual([
        ['authorizedPolicyListInvalid', `${POLICY}.breakage.value`],
        ['authorizedPolicyListInvalid', `${POLICY}.expiration`],
        ['authorizedPolicyListInvalid', `${POLICY}.serialization`],
      ]);
      const parameter = expectToken(
        await add(policyFor(world, { deviceParameters: [{ parameterId: 'speed', type: 'integer', low: 5, high: 1 }] })),
        420,
        'parameterRangeInvalid',
      );
      expect(parameter.field).toBe(`${POLICY}.deviceParameters[0].low`);
    });

    it('answers orderNotMappable when the revision or its digest is not built here', async () => {
      expectToken(
        await add(policyFor(world, { design: { ...policyFor(world).design, digestValue: 'a'.repeat(64) } })),
        420,
        'orderNotMappable',
      );
      expectToken(
        await add(policyFor(world, { design: { ...policyFor(world).design, dsiVersion: 99 } })),
        420,
        'orderNotMappable',
      );
      expectToken(await add(policyFor(world, { design: { ...policyFor(world).design, dsiId: uuid } })), 420, 'orderNotMappable');
    });

    it('refuses a duplicate order unless it revokes the earlier one, which is then revoked with its authorizations', async () => {
      const policy = policyFor(world);
      const first = await addOrder(ctx(), policy);
      expectToken(await add(policy), 420, 'orderNumberDuplicate');
      const authorized = await ctx().call('POST', '/ui/authorization/authorize', {
        token: await ctx().adminToken(),
        body: { orderId: first, deviceId: world.deviceId, quantity: 4 },
      });
      expect(authorized.statusCode, authorized.body).toBe(200);

      const replacement = await addOrder(ctx(), { ...policy, quantity: 20, revokes: { orderNumber: policy.orderNumber } });
      const earlier = (await fetchOrder(first)).json<TOrderDetail>();
      expect(earlier).toMatchObject({ revoked: true, allocatedQuantity: 0, remainingQuantity: 10 });
      expect(earlier.authorizations.data.map((a) => a.state)).toEqual(['revoked']);
      expect((await fetchOrder(replacement)).json<TOrder>()).toMatchObject({
        revoked: false,
        quantity: 20,
        orderNumber: policy.orderNumber,
      });

      // revoking again replaces the live replacement; an unknown order cannot be revoked
      expectToken(await add({ ...policy, revokes: { orderNumber: 'nope' } }), 420, 'orderIdNotValid');
      const third = await addOrder(ctx(), { ...policy, revokes: { orderNumber: policy.orderNumber } });
      expect((await fetchOrder(replacement)).json<TOrder>().revoked).toBe(true);
      expect((await fetchOrder(third)).json<TOrder>().revoked).toBe(false);
    });
  });

  describe('POST /ui/order/upload', () => {
    it('adds an order from a policy file and refuses a file that is not JSON', async () => {
      const token = await ctx().adminToken();
      const response = await uploadForm(ctx(), '/ui/order/upload', token, {
        file: { filename: 'policy.json', content: JSON.stringify(policyFor(world)), contentType: 'application/json' },
      });
      expect(response.statusCode, response.body).toBe(200);
      const orderId = response.json<{ orderId: string }>().orderId;
      expect((await fetchOrder(orderId)).json<TOrder>().source).toBe('upload');
      expectToken(
        await uploadForm(ctx(), '/ui/order/upload', token, {
          file: { filename: 'p.json', content: '{nope', contentType: 'application/json' },
        }),
        420,
        'authorizedPolicyListNotFormattedCorrectly',
      );
      expectToken(await uploadForm(ctx(), '/ui/order/upload', token, { note: 'no file' }), 420, 'uploadFileMissing');
    });

    it('holds the file to what order/add holds its body to: no NUL, no character XML cannot carry, and no order', async () => {
      const token = await ctx().adminToken();
      const before = await countRows(ctx(), 'orders');
      const upload = (policy: object) =>
        uploadForm(ctx(), '/ui/order/upload', token, {
          file: { filename: 'policy.json', content: JSON.stringify(policy), contentType: 'application/json' },
        });
      // PostgreSQL refused the NUL with a 500; SQLite and MariaDB stored it
      const nul = expectToken(await upload(policyFor(world, { purpose: 'Production\u0000run' })), 400, 'malformedRequest');
      expect(nul.errorDescription).toBe(`${POLICY}.purpose contains a NUL character`);
      expectToken(
        await upload(policyFor(world, { companyName: 'Acme\u0001' })),
        420,
        'invalidCharacters',
        `${POLICY}.companyName`,
      );
      expectToken(
        await upload(policyFor(world, { purpose: 'half \ud800 a pair' })),
        420,
        'invalidCharacters',
        `${POLICY}.purpose`,
      );
      expect(await countRows(ctx(), 'orders')).toBe(before);
    });
  });

  describe('POST /apl/order/add', () => {
    it('accepts an order signed by a sender certificate the admin trusted, and nothing else', async () => {
      const token = await ctx().adminToken();
      const sender = await peerIdentity(world.root, { service: 'protect' });
      const stranger = await peerIdentity(world.root, { service: 'protect' });
      const body = { [POLICY]: policyFor(world) };
      const sign = (value: unknown, identity: { privateKeyPem: string; certificatePem: string }) =>
        signDetachedJws(canonicalJson(value), identity.privateKeyPem, { certificatePem: identity.certificatePem });
      const send = async (value: unknown, signature?: string) =>
        ctx().call('POST', '/apl/order/add', { body: value, headers: signature ? { 'x-manifold-signature': signature } : {} });

      expectToken(await send(body), 401, 'orderSenderNotTrusted');
      expectToken(await send(body, await sign(body, sender)), 401, 'orderSenderNotTrusted');

      expectToken(
        await ctx().call('POST', '/ui/admin/order-senders', { token, body: { certificate: world.root.certificatePem } }),
        420,
        'orderSenderCertificateInvalid',
      );
      const trusted = await ctx().call('POST', '/ui/admin/order-senders', {
        token,
        body: { certificate: sender.certificatePem, name: 'Acme Protect' },
      });
      expect(trusted.statusCode, trusted.body).toBe(200);
      const { fingerprint } = trusted.json<{ fingerprint: string }>();
      expect((await ctx().call('GET', '/ui/admin/order-senders', { token })).json<{ data: { name: string }[] }>().data).toEqual([
        expect.objectContaining({
          name: 'Acme Protect',
          fingerprint,
          keySerialNumber: describeCertificate(sender.certificatePem).serialNumber,
        }),
      ]);

      const accepted = await send(body, await sign(body, sender));
      expect(accepted.statusCode, accepted.body).toBe(200);
      const order = (await fetchOrder(accepted.json<{ orderId: string }>().orderId)).json<TOrder>();
      expect(order).toMatchObject({ source: 'partner', userID: 'sender:Acme Protect', manageUserId: null });

      const tampered = { [POLICY]: { ...policyFor(world), quantity: 1_000_000 } };
      expectToken(await send(tampered, await sign(body, sender)), 401, 'orderSenderNotTrusted');
      expectToken(await send(body, await sign(body, stranger)), 401, 'orderSenderNotTrusted');

      const removed = await ctx().call('POST', '/ui/admin/order-senders/delete', { token, body: { fingerprint } });
      expect(removed.statusCode).toBe(200);
      expectToken(
        await ctx().call('POST', '/ui/admin/order-senders/delete', { token, body: { fingerprint } }),
        420,
        'orderSenderNotPresent',
      );
      const again = { [POLICY]: policyFor(world) };
      expectToken(await send(again, await sign(again, sender)), 401, 'orderSenderNotTrusted');
    });
  });

  describe('GET /ui/order/list', () => {
    it('pages, sorts and filters in the database, not archived by default', async () => {
      const token = await ctx().adminToken();
      const company = `Lister ${Math.random().toString(36).slice(2, 7)}`;
      const list = (query: string) =>
        ctx()
          .call('GET', `/ui/order/list?${query}`, { token })
          .then((r) => r.json<TPage<TOrder>>());
      const ofThisDesignByAdmin = `filterByDsiId=${world.revision.dsiId}&filterByUserId=admin&numberOfItems=500`;
      const designOrdersBefore = (await list(ofThisDesignByAdmin)).totalNumOfItems;
      const ids: string[] = [];
      for (let i = 0; i < 7; i += 1) ids.push(await addOrder(ctx(), policyFor(world, { companyName: company })));

      const first = await list(`filterByCompanyName=${encodeURIComponent(company)}&numberOfItems=3`);
      expect(first).toMatchObject({ pageNum: 1, numberOfItems: 3, totalNumOfItems: 7, totalNumOfPages: 3 });
      const sorted = [...ids].sort();
      expect(first.data.map((o) => o.orderId)).toEqual(sorted.slice(0, 3));
      const last = await list(`filterByCompanyName=${encodeURIComponent(company)}&numberOfItems=3&pageNum=3`);
      expect(last.data.map((o) => o.orderId)).toEqual(sorted.slice(6));
      const middle = await list(`filterByCompanyName=${encodeURIComponent(company)}&numberOfItems=3&pageNum=2&sortOrder=desc`);
      expect(middle.data.map((o) => o.orderId)).toEqual([...sorted].reverse().slice(3, 6));
      const byDate = await list(
        `filterByCompanyName=${encodeURIComponent(company)}&sortBy=dateCreated&sortOrder=desc&numberOfItems=100`,
      );
      const dates = byDate.data.map((o) => `${o.dateCreated}|${o.orderId}`);
      expect(dates).toEqual([...dates].sort().reverse());
      expect((await list(ofThisDesignByAdmin)).totalNumOfItems).toBe(designOrdersBefore + 7);
      expect((await list(`filterByUserId=nobody`)).totalNumOfItems).toBe(0);
      expect((await list(`pageNum=99&filterByCompanyName=${encodeURIComponent(company)}`)).data).toEqual([]);

      const archived = await ctx().call('POST', '/ui/order/archive', {
        token,
        body: { archiveOrders: [{ orderId: ids[0] }, { orderId: ids[1] }] },
      });
      expect(archived.statusCode, archived.body).toBe(200);
      expect(archived.json<{ data: TOrder[] }>().data.every((o) => o.archive)).toBe(true);
      expect((await list(`filterByCompanyName=${encodeURIComponent(company)}`)).totalNumOfItems).toBe(5);
      expect((await list(`filterByCompanyName=${encodeURIComponent(company)}&filterByArchived=true`)).totalNumOfItems).toBe(2);
      const restored = await ctx().call('POST', '/ui/order/restore', { token, body: { restoreOrders: [{ orderId: ids[0] }] } });
      expect(restored.statusCode).toBe(200);
      expect((await list(`filterByCompanyName=${encodeURIComponent(company)}`)).totalNumOfItems).toBe(6);
      const errors = expectTokens(
        await ctx().call('POST', '/ui/order/archive', {
          token,
          body: { archiveOrders: [{ orderId: uuid }, { orderId: '11111111-1111-4111-8111-111111111111' }] },
        }),
      );
      expect(errors.map((e) => e.field)).toEqual(['archiveOrders[0].orderId', 'archiveOrders[1].orderId']);
      expect((await ctx().call('GET', '/ui/order/list?sortBy=price', { token })).statusCode).toBe(400);
    });

    it('shows a USER only the orders of their groups; an ADMIN groups them', async () => {
      const admin = await ctx().adminToken();
      const group = await ctx().call('POST', '/ui/groups/add', {
        token: admin,
        body: { name: `Floor ${Math.random().toString(36).slice(2, 7)}` },
      });
      expect(group.statusCode, group.body).toBe(200);
      const groupId = group.json<{ userGroupId: number }>().userGroupId;
      const member = await ctx().createUser();
      const outsider = await ctx().createUser();
      const edit = await ctx().call('POST', '/ui/groups/edit', {
        token: admin,
        body: { userGroupId: groupId, members: [member.profile.username] },
      });
      expect(edit.statusCode, edit.body).toBe(200);

      const orderId = await addOrder(ctx(), policyFor(world));
      expectToken(await fetchOrder(orderId, member.token), 420, 'orderIdNotValid');
      expectToken(
        await ctx().call('POST', '/ui/order/edit-groups', { token: admin, body: { orderId, groupIds: [groupId, 999999] } }),
        420,
        'groupNotPresent',
      );
      const grouped = await ctx().call('POST', '/ui/order/edit-groups', { token: admin, body: { orderId, groupIds: [groupId] } });
      expect(grouped.statusCode, grouped.body).toBe(200);
      expect(grouped.json<TOrderDetail>().groupIds).toEqual([groupId]);

      expect((await fetchOrder(orderId, member.token)).statusCode).toBe(200);
      expectToken(await fetchOrder(orderId, outsider.token), 420, 'orderIdNotValid');
      const memberList = (await ctx().call('GET', '/ui/order/list?numberOfItems=500', { token: member.token })).json<
        TPage<TOrder>
      >();
      expect(memberList.data.map((o) => o.orderId)).toEqual([orderId]);
      expect((await ctx().call('GET', '/ui/order/list', { token: outsider.token })).json<TPage<TOrder>>().totalNumOfItems).toBe(
        0,
      );
      expectToken(
        await ctx().call('POST', '/ui/order/revoke', { token: outsider.token, body: { orderId } }),
        420,
        'orderIdNotValid',
      );

      // an order a USER adds is shared with that user's groups
      const own = await addOrder(ctx(), policyFor(world), member.token);
      expect((await fetchOrder(own, member.token)).json<TOrderDetail>()).toMatchObject({
        groupIds: [groupId],
        userID: member.profile.username,
      });
    });
  });

  describe('POST /ui/order/revoke', () => {
    it('revokes once (orderAlreadyRevoked after), with its authorizations returning their quantity when asked', async () => {
      const token = await ctx().adminToken();
      const orderId = await addOrder(ctx(), policyFor(world));
      for (const quantity of [2, 3]) {
        const response = await ctx().call('POST', '/ui/authorization/authorize', {
          token,
          body: { orderId, deviceId: world.deviceId, quantity },
        });
        expect(response.statusCode, response.body).toBe(200);
      }
      expect((await fetchOrder(orderId)).json<TOrder>().remainingQuantity).toBe(5);
      const revoked = await ctx().call('POST', '/ui/order/revoke', { token, body: { orderId, includeAuthorized: true } });
      expect(revoked.statusCode, revoked.body).toBe(200);
      const detail = (await fetchOrder(orderId)).json<TOrderDetail>();
      expect(detail).toMatchObject({ revoked: true, allocatedQuantity: 0 });
      expect(detail.authorizations.data.map((a) => a.state)).toEqual(['revoked', 'revoked']);
      expect(detail.history.map((h) => h.eventType)).toEqual([
        'orderRevoked',
        'licenceRevoked',
        'licenceRevoked',
        'licenceAuthorized',
        'licenceAuthorized',
        'licenceReceived',
      ]);
      const second = (
        await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}&pageNum=2&numberOfItems=1`, { token })
      ).json<TOrderDetail>().authorizations;
      expect(second).toMatchObject({ pageNum: 2, numberOfItems: 1, totalNumOfPages: 2, totalNumOfItems: 2 });
      expect(second.data.map((a) => a.id)).toEqual([detail.authorizations.data[1]!.id]);
      const live = await ctx()
        .app.services.database.db.selectFrom('entity_references')
        .select('referrer_id')
        .where('released_at', 'is', null)
        .where('referrer_id', 'in', [orderId, ...detail.authorizations.data.map((a) => a.id)])
        .execute();
      expect(live).toEqual([]);
      expectToken(await ctx().call('POST', '/ui/order/revoke', { token, body: { orderId } }), 420, 'orderAlreadyRevoked');

      // without includeAuthorized the authorizations stay valid
      const other = await addOrder(ctx(), policyFor(world));
      const kept = await ctx().call('POST', '/ui/authorization/authorize', {
        token,
        body: { orderId: other, deviceId: world.deviceId, quantity: 1 },
      });
      expect(kept.statusCode).toBe(200);
      expect(
        (await ctx().call('POST', '/ui/order/revoke', { token, body: { orderId: other, includeAuthorized: false } })).statusCode,
      ).toBe(200);
      expect((await fetchOrder(other)).json<TOrderDetail>().authorizations.data.map((a) => a.state)).toEqual(['authorized']);
      expectToken(await ctx().call('POST', '/ui/order/revoke', { token, body: { orderId: uuid } }), 420, 'orderIdNotValid');
    });
  });
});
