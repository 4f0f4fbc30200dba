import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TDevice, TDeviceDetail } from '@manifold/contract';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { licenceSettingKeys } from '../src/modules/settings/server-settings.js';
import { SettingsRepository } from '../src/modules/settings/settings.repository.js';
import { onePixelPng, provisionServer, testMachine, uploadForm } from './helpers/packages-fixtures.js';
import { startServer, type ServerProcess } from './helpers/server-process.js';
import { describeEachDatabase, expectToken, expectTokens, serverProcessEnv, type TestApp } from './helpers/test-app.js';
import { testRoot } from './helpers/test-pki.js';

const uuid = '00000000-0000-4000-8000-000000000000';

/** The stored objects under DATA_DIR/storage (not the temporary files of uploads in flight). */
async function storedObjects(ctx: TestApp): Promise<string[]> {
  const root = path.join(ctx.config.dataDir, 'storage');
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && path.basename(entry.parentPath) !== 'tmp')
    .map((entry) => entry.name)
    .sort();
}

async function register(ctx: TestApp, body: unknown) {
  return ctx.call('POST', '/apl/registration/add', { body });
}

async function registered(ctx: TestApp, root: DevelopmentCa): Promise<string> {
  const machine = await testMachine(root);
  const response = await register(ctx, await machine.request());
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ deviceId: string }>().deviceId;
}

async function reference(ctx: TestApp, deviceId: string, referrerId: string, expiresAt: string | null) {
  await ctx.app.services.database.db
    .insertInto('entity_references')
    .values({
      target_kind: 'device',
      target_id: deviceId,
      referrer_kind: 'authorization',
      referrer_id: referrerId,
      expires_at: expiresAt,
      released_at: null,
      created_at: new Date().toISOString(),
    })
    .execute();
}

describeEachDatabase('machines', (ctx) => {
  let root: DevelopmentCa;

  describe('every device endpoint', () => {
    const adminOnly: [string, unknown][] = [
      ['/ui/device/approve', { id: uuid, approve: true }],
      ['/ui/device/disable', { deviceId: uuid }],
      ['/ui/device/delete', { deviceId: uuid }],
      ['/ui/device/image', undefined],
    ];
    it('should require authentication', async () => {
      for (const url of ['/ui/device/list', `/ui/device/fetch?deviceId=${uuid}`, `/ui/device/image/${'a'.repeat(32)}.png`]) {
        expectToken(await ctx().call('GET', url), 401, 'invalidSessionToken');
      }
      for (const [url, body] of adminOnly)
        expectToken(await ctx().call('POST', url, body ? { body } : {}), 401, 'invalidSessionToken');
    });

    it('lets any role list machines; approving, disabling, deleting and pictures are for ADMIN', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('GET', '/ui/device/list', { token })).statusCode).toBe(200);
      for (const [url, body] of adminOnly)
        expectToken(await ctx().call('POST', url, { token, ...(body ? { body } : {}) }), 403, 'actionNotAllowed');
    });
  });

  describe('POST /apl/registration/add', () => {
    it('registers a machine whose certificates chain to the trust anchor as Pending, once', async () => {
      ({ root } = await provisionServer(ctx()));
      const machine = await testMachine(root, { image: `data:image/png;base64,${onePixelPng.toString('base64')}` });
      const response = await register(ctx(), await machine.request());
      expect(response.statusCode, response.body).toBe(200);
      const { deviceId, registrationState } = response.json<{ deviceId: string; registrationState: string }>();
      expect(registrationState).toBe('Pending');

      const detail = (
        await ctx().call('GET', `/ui/device/fetch?deviceId=${deviceId}`, { token: await ctx().adminToken() })
      ).json<TDeviceDetail>();
      expect(detail).toMatchObject({
        deviceId,
        registrationState: 'Pending',
        approved: false,
        disabled: false,
        version: 1,
        parameterVersion: '1.0',
        authorizedUserList: [],
        deviceIdentity: {
          id: machine.apl.deviceIdentity.id,
          serialNumber: machine.apl.deviceIdentity.serialNumber,
          model: 'X1',
          manufacturer: 'Acme',
          technology: 'FDM',
        },
      });
      expect(detail.parameters).toHaveLength(5);
      expect(detail.signingCertificate.keyUsage).toContain('digitalSignature');
      expect(detail.encryptionCertificate.keyUsage).toContain('keyAgreement');
      expect(detail.deviceIdentity.image).toMatch(/^[a-f0-9]{32}\.png$/);
      const image = await ctx().call('GET', `/ui/device/image/${detail.deviceIdentity.image}`, {
        token: await ctx().adminToken(),
      });
      expect(image.rawPayload.equals(onePixelPng)).toBe(true);
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .selectAll()
        .where('event_type', '=', 'machineRegistered')
        .where('subject', '=', deviceId)
        .execute();
      expect(audit).toHaveLength(1);

      expectToken(await register(ctx(), await machine.request()), 420, 'registrationExchangeAlreadyRegistered');
      const sameId = await testMachine(root, { id: machine.apl.deviceIdentity.id });
      expectToken(await register(ctx(), await sameId.request()), 420, 'registrationExchangeAlreadyRegistered');
    });

    it('answers registrationExchangeInvalidApl for other aplTypes and malformed records', async () => {
      const machine = await testMachine(root);
      expectToken(await register(ctx(), await machine.request({ aplType: 'protect' })), 420, 'registrationExchangeInvalidApl');
      expectToken(await register(ctx(), await machine.request({ aplType: 'toaster' })), 420, 'registrationExchangeInvalidApl');
      const broken = { ...machine.apl, deviceIdentity: { ...machine.apl.deviceIdentity, serialNumber: '', model: 7 } };
      const errors = expectTokens(await register(ctx(), await machine.request({ apl: broken })));
      expect(errors.map((e) => [e.errorToken, e.field]).sort()).toEqual([
        ['registrationExchangeInvalidApl', 'apl.deviceIdentity.model'],
        ['registrationExchangeInvalidApl', 'apl.deviceIdentity.serialNumber'],
      ]);
      const badParameter = { ...machine.apl, parameters: [{ parameterId: 'x', type: 'integer', low: 5, high: 1 }] };
      const error = expectToken(
        await register(ctx(), await machine.request({ apl: badParameter })),
        420,
        'parameterRangeInvalid',
      );
      expect(error.field).toBe('apl.parameters[0].low');
    });

    it('refuses certificates outside the trust anchors, of the wrong purpose, and unsigned or wrongly signed records', async () => {
      const stranger = await testMachine(await testRoot('Another network'));
      const untrusted = expectToken(await register(ctx(), await stranger.request()), 420, 'certificateExchangeChainVerifyFail');
      expect(untrusted.field).toBe('apl.signingCertificate');

      const machine = await testMachine(root);
      const swapped = {
        ...machine.apl,
        signingCertificate: machine.apl.encryptionCertificate,
        encryptionCertificate: machine.apl.signingCertificate,
      };
      expectToken(await register(ctx(), await machine.request({ apl: swapped })), 420, 'certificateWrongPurpose');
      expectToken(
        await register(ctx(), await machine.request({ apl: { ...machine.apl, signingCertificate: 'not a pem' } })),
        420,
        'certificateExchangeMissingCertificate',
      );

      const unsigned = await machine.request();
      delete unsigned.signature;
      expectToken(await register(ctx(), unsigned), 420, 'registrationSignatureInvalid');
      const forged = await machine.request({
        signature: await signDetachedJws(canonicalJson(machine.apl), stranger.signingKeyPem),
      });
      expectToken(await register(ctx(), forged), 420, 'registrationSignatureInvalid');
      const tampered = { ...(await machine.request()), apl: { ...machine.apl, parameterVersion: '2.0' } };
      expectToken(await register(ctx(), tampered), 420, 'registrationSignatureInvalid');
      const rows = await ctx()
        .app.services.database.db.selectFrom('devices')
        .select('id')
        .where('identity_id', '=', machine.apl.deviceIdentity.id)
        .execute();
      expect(rows).toHaveLength(0);
    });

    /** The machines this app holds with an identity id, and the registrations audited for them. */
    const storedMachine = async (identityId: string) => {
      const { db } = ctx().app.services.database;
      const devices = await db.selectFrom('devices').select('id').where('identity_id', '=', identityId).execute();
      const audited = await db
        .selectFrom('audit_events')
        .select('subject')
        .where('event_type', '=', 'machineRegistered')
        .where('details', 'like', `%${identityId}%`)
        .execute();
      return { devices: devices.map((row) => row.id), registrations: audited.length };
    };
    const minutesAway = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

    it('refuses a registration not signed within five minutes (registrationExchangeInvalidApl on apl.dateCreated), storing nothing', async () => {
      const machine = await testMachine(root);
      for (const dateCreated of [minutesAway(-6), minutesAway(-60 * 24 * 30), minutesAway(6), 'yesterday', undefined]) {
        const apl = dateCreated === undefined ? machine.apl : { ...machine.apl, dateCreated };
        const refused = expectToken(
          await register(ctx(), await machine.request({ apl })),
          420,
          'registrationExchangeInvalidApl',
          'apl.dateCreated',
        );
        expect(refused.errorDescription).toMatch(/five minutes|dateCreated/);
        expect(await storedMachine(machine.apl.deviceIdentity.id)).toEqual({ devices: [], registrations: 0 });
      }
      const recent = await register(ctx(), await machine.request({ apl: { ...machine.apl, dateCreated: minutesAway(-4) } }));
      expect(recent.statusCode, recent.body).toBe(200);
      expect(recent.json()).toMatchObject({ registrationState: 'Pending' });
    });

    it('a captured registration replayed after the machine was deleted here registers nothing; a fresh one does', async () => {
      const admin = await ctx().adminToken();
      const machine = await testMachine(root);
      const captured = await machine.request();
      const first = await register(ctx(), captured);
      expect(first.statusCode, first.body).toBe(200);
      const { deviceId } = first.json<{ deviceId: string }>();
      expectToken(await register(ctx(), captured), 420, 'duplicateAplReceived');
      const deleted = await ctx().call('POST', '/ui/device/delete', { token: admin, body: { deviceId, forceDelete: false } });
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(await storedMachine(machine.apl.deviceIdentity.id)).toEqual({ devices: [], registrations: 1 });

      expectToken(await register(ctx(), captured), 420, 'duplicateAplReceived');
      expect(await storedMachine(machine.apl.deviceIdentity.id)).toEqual({ devices: [], registrations: 1 });

      const fresh = await register(ctx(), await machine.request());
      expect(fresh.statusCode, fresh.body).toBe(200);
      const again = fresh.json<{ deviceId: string; registrationState: string }>();
      expect(again.registrationState).toBe('Pending');
      expect(again.deviceId).not.toBe(deviceId);
      expect(await storedMachine(machine.apl.deviceIdentity.id)).toEqual({ devices: [again.deviceId], registrations: 2 });
    });

    it('takes the same signed record sent twice at once once: one Pending machine, the other duplicateAplReceived', async () => {
      for (let round = 0; round < 3; round++) {
        const machine = await testMachine(root, { image: `data:image/png;base64,${onePixelPng.toString('base64')}` });
        const captured = await machine.request();
        const objectsBefore = await storedObjects(ctx());
        const answers = await Promise.all([register(ctx(), captured), register(ctx(), captured)]);
        const taken = answers.filter((answer) => answer.statusCode === 200);
        expect(taken, answers.map((answer) => answer.body).join('\n')).toHaveLength(1);
        const refused = answers.find((answer) => answer !== taken[0])!;
        expectToken(refused, 420, 'duplicateAplReceived', 'apl');
        const { deviceId, registrationState } = taken[0]!.json<{ deviceId: string; registrationState: string }>();
        expect(registrationState).toBe('Pending');
        expect(await storedMachine(machine.apl.deviceIdentity.id)).toEqual({ devices: [deviceId], registrations: 1 });
        // the refused one's picture is not left behind: one object more, the machine's
        const objectsAfter = await storedObjects(ctx());
        expect(objectsAfter.filter((name) => !objectsBefore.includes(name))).toHaveLength(1);
        expect(objectsAfter).toHaveLength(objectsBefore.length + 1);
        // and sent again later: the same answer
        expectToken(await register(ctx(), captured), 420, 'duplicateAplReceived', 'apl');
      }
    });

    it('stores nothing of a machine the operating licence has no room for, its picture included', async () => {
      const { db } = ctx().app.services.database;
      const settings = new SettingsRepository(db);
      const machines = Number(
        (
          await db
            .selectFrom('devices')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('registration_state', '!=', 'Rejected')
            .executeTakeFirstOrThrow()
        ).n,
      );
      const terms = { limits: { machines }, addons: ['designArchive', 'quality', 'secureRepository'] };
      await settings.set(licenceSettingKeys.terms, JSON.stringify(terms));
      try {
        const before = await storedObjects(ctx());
        const machine = await testMachine(root, { image: `data:image/png;base64,${onePixelPng.toString('base64')}` });
        expectToken(await register(ctx(), await machine.request()), 420, 'licenceMachineLimitReached');
        expect(await storedObjects(ctx())).toEqual(before);
        expect(
          await db.selectFrom('devices').select('id').where('identity_id', '=', machine.apl.deviceIdentity.id).execute(),
        ).toEqual([]);
      } finally {
        await db.deleteFrom('settings').where('key', '=', licenceSettingKeys.terms).execute();
      }
    });
  });

  describe('GET /ui/device/list', () => {
    it('pages and filters by approval', async () => {
      const token = await ctx().adminToken();
      const approvedId = await registered(ctx(), root);
      await ctx().call('POST', '/ui/device/approve', { token, body: { id: approvedId, approve: true } });
      const approved = (await ctx().call('GET', '/ui/device/list?approved=true&numberOfItems=100', { token })).json<{
        data: TDevice[];
      }>().data;
      expect(approved.every((d) => d.registrationState === 'Approved')).toBe(true);
      expect(approved.map((d) => d.deviceId)).toContain(approvedId);
      const others = (await ctx().call('GET', '/ui/device/list?approved=false&numberOfItems=100', { token })).json<{
        data: TDevice[];
      }>().data;
      expect(others.some((d) => d.deviceId === approvedId)).toBe(false);
      const page = (await ctx().call('GET', '/ui/device/list?numberOfItems=1&pageNum=2', { token })).json<{
        data: TDevice[];
        totalNumOfPages: number;
        totalNumOfItems: number;
      }>();
      expect(page.data).toHaveLength(1);
      expect(page.totalNumOfPages).toBe(page.totalNumOfItems);
      expect((await ctx().call('GET', '/ui/device/list?approved=maybe', { token })).statusCode).toBe(400);
      expectToken(await ctx().call('GET', `/ui/device/fetch?deviceId=${uuid}`, { token }), 420, 'deviceIdNotValid');
    });

    it('filters by a search in the name, deviceId or serial number, its wildcards taken literally', async () => {
      const token = await ctx().adminToken();
      const suffix = Math.random().toString(36).slice(2, 8);
      const registerAs = async (name: string, serialNumber: string) => {
        const machine = await testMachine(root, { name, serialNumber });
        const response = await register(ctx(), await machine.request());
        expect(response.statusCode, response.body).toBe(200);
        return response.json<{ deviceId: string }>().deviceId;
      };
      const literal = await registerAs(`Lathe_${suffix}%`, `LSN-${suffix}-A`);
      const other = await registerAs(`LatheX${suffix}Y`, `LSN-${suffix}-B`);
      const found = async (search: string, filter = '') => {
        const response = await ctx().call(
          'GET',
          `/ui/device/list?numberOfItems=100${filter}&search=${encodeURIComponent(search)}`,
          { token },
        );
        expect(response.statusCode).toBe(200);
        return response.json<{ data: TDevice[] }>().data.map((device) => device.deviceId);
      };
      expect(await found(`lathe_${suffix}%`)).toEqual([literal]);
      expect(await found(`lsn-${suffix}-b`)).toEqual([other]);
      expect((await found(`lsn-${suffix}`)).sort()).toEqual([literal, other].sort());
      expect(await found(literal.slice(0, 13).toUpperCase())).toEqual([literal]);
      expect(await found(`lathe_${suffix}%`, '&approved=true')).toEqual([]);
      await ctx().call('POST', '/ui/device/approve', { token, body: { id: literal, approve: true } });
      expect(await found(`lathe_${suffix}%`, '&approved=true')).toEqual([literal]);
    });
  });

  describe('POST /ui/device/approve', () => {
    it('approves and rejects, each once', async () => {
      const token = await ctx().adminToken();
      const deviceId = await registered(ctx(), root);
      const approve = (body: unknown) => ctx().call('POST', '/ui/device/approve', { token, body });
      const approved = await approve({ id: deviceId, approve: true });
      expect(approved.json<TDevice>()).toMatchObject({ registrationState: 'Approved', approved: true, version: 2 });
      expectToken(await approve({ deviceId, approve: true }), 420, 'registrationAlreadyApproved');
      expect((await approve({ deviceId, approve: false })).json<TDevice>().registrationState).toBe('Rejected');
      expectToken(await approve({ id: deviceId, approve: false }), 420, 'registrationAlreadyRejected');
      expectToken(await approve({ id: uuid, approve: true }), 420, 'registrationNotPresent');
      expectToken(await approve({ approve: true }), 420, 'registrationNotPresent');
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select('event_type')
        .where('subject', '=', deviceId)
        .orderBy('id')
        .execute();
      expect(audit.map((a) => a.event_type)).toEqual(['machineRegistered', 'machineApproved', 'machineRejected']);
    });

    it('answers registrationNotPresent to a decision on a machine deleted meanwhile', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      for (let round = 0; round < 16; round += 1) {
        const deviceId = await registered(ctx(), root);
        const approve = round % 2 === 0;
        const [decided, deleted] = await Promise.all([
          ctx().call('POST', '/ui/device/approve', { token, body: { id: deviceId, approve } }),
          ctx().call('POST', '/ui/device/delete', { token, body: { deviceId, forceDelete: false } }),
        ]);
        expect(deleted.statusCode, deleted.body).toBe(200);
        if (decided.statusCode === 200) {
          expect(decided.json<TDevice>().registrationState).toBe(approve ? 'Approved' : 'Rejected');
        } else {
          expectToken(decided, 420, 'registrationNotPresent', 'id');
          const decisions = await db
            .selectFrom('audit_events')
            .select('event_type')
            .where('subject', '=', deviceId)
            .where('event_type', 'in', ['machineApproved', 'machineRejected'])
            .execute();
          expect(decisions).toEqual([]);
        }
        expect(await db.selectFrom('devices').select('id').where('id', '=', deviceId).executeTakeFirst()).toBeUndefined();
      }
    });

    it('names the state the machine is in when the opposite decision came first', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      for (let round = 0; round < 16; round += 1) {
        const deviceId = await registered(ctx(), root);
        const [approved, rejected] = await Promise.all([
          ctx().call('POST', '/ui/device/approve', { token, body: { id: deviceId, approve: true } }),
          ctx().call('POST', '/ui/device/approve', { token, body: { id: deviceId, approve: false } }),
        ]);
        const row = await db
          .selectFrom('devices')
          .select('registration_state')
          .where('id', '=', deviceId)
          .executeTakeFirstOrThrow();
        if (approved.statusCode !== 200) {
          // the rejection came first and stands
          expectToken(approved, 420, 'registrationAlreadyRejected', 'approve');
          expect(rejected.json<TDevice>().registrationState).toBe('Rejected');
          expect(row.registration_state).toBe('Rejected');
        } else if (rejected.statusCode !== 200) {
          expectToken(rejected, 420, 'registrationAlreadyApproved', 'approve');
          expect(approved.json<TDevice>().registrationState).toBe('Approved');
          expect(row.registration_state).toBe('Approved');
        } else {
          // one after the other: the later one stands
          const decisions = await db
            .selectFrom('audit_events')
            .select('event_type')
            .where('subject', '=', deviceId)
            .where('event_type', 'in', ['machineApproved', 'machineRejected'])
            .orderBy('id')
            .execute();
          expect(decisions).toHaveLength(2);
          expect(row.registration_state).toBe(decisions[1]!.event_type === 'machineApproved' ? 'Approved' : 'Rejected');
        }
      }
    });
  });

  describe('POST /ui/device/disable', () => {
    it('disables and enables again', async () => {
      const token = await ctx().adminToken();
      const deviceId = await registered(ctx(), root);
      expect((await ctx().call('POST', '/ui/device/disable', { token, body: { deviceId } })).json<TDevice>().disabled).toBe(true);
      expect(
        (await ctx().call('POST', '/ui/device/disable', { token, body: { deviceId, disabled: false } })).json<TDevice>().disabled,
      ).toBe(false);
      expectToken(await ctx().call('POST', '/ui/device/disable', { token, body: { deviceId: uuid } }), 420, 'deviceIdNotValid');
    });

    it('disables a machine another change reached first, rather than answering deviceIdNotValid', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      for (let round = 0; round < 16; round += 1) {
        const deviceId = await registered(ctx(), root);
        const [approved, disabled] = await Promise.all([
          ctx().call('POST', '/ui/device/approve', { token, body: { id: deviceId, approve: true } }),
          ctx().call('POST', '/ui/device/disable', { token, body: { deviceId } }),
        ]);
        expect(approved.statusCode, approved.body).toBe(200);
        expect(disabled.statusCode, disabled.body).toBe(200);
        expect(disabled.json<TDevice>()).toMatchObject({ deviceId, disabled: true });
        const row = await db
          .selectFrom('devices')
          .select(['registration_state', 'disabled'])
          .where('id', '=', deviceId)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ registration_state: 'Approved', disabled: 1 });
        const events = await db
          .selectFrom('audit_events')
          .select('event_type')
          .where('subject', '=', deviceId)
          .where('event_type', 'in', ['machineApproved', 'machineDisabled'])
          .execute();
        expect(events.map((e) => e.event_type).sort()).toEqual(['machineApproved', 'machineDisabled']);
      }
    });
  });

  describe('POST /ui/device/delete', () => {
    it('is refused while the machine holds live authorizations unless forced', async () => {
      const token = await ctx().adminToken();
      const deviceId = await registered(ctx(), root);
      await reference(ctx(), deviceId, 'authorization-expired', new Date(Date.now() - 60_000).toISOString());
      await reference(ctx(), deviceId, 'authorization-live', new Date(Date.now() + 3_600_000).toISOString());
      expectToken(
        await ctx().call('POST', '/ui/device/delete', { token, body: { deviceId } }),
        420,
        'deviceHasLiveAuthorizations',
      );
      expect((await ctx().call('GET', `/ui/device/fetch?deviceId=${deviceId}`, { token })).statusCode).toBe(200);
      expect((await ctx().call('POST', '/ui/device/delete', { token, body: { deviceId, forceDelete: true } })).statusCode).toBe(
        200,
      );
      const live = await ctx()
        .app.services.database.db.selectFrom('entity_references')
        .selectAll()
        .where('target_id', '=', deviceId)
        .where('referrer_id', '=', 'authorization-live')
        .executeTakeFirstOrThrow();
      expect(live.released_at).not.toBeNull();
      expectToken(await ctx().call('GET', `/ui/device/fetch?deviceId=${deviceId}`, { token }), 420, 'deviceIdNotValid');
      expectToken(await ctx().call('POST', '/ui/device/delete', { token, body: { deviceId } }), 420, 'deviceIdNotValid');
    });

    it('deletes a machine without authorizations and records the deregistration', async () => {
      const token = await ctx().adminToken();
      const deviceId = await registered(ctx(), root);
      expect((await ctx().call('POST', '/ui/device/delete', { token, body: { deviceId } })).statusCode).toBe(200);
      const audit = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select('id')
        .where('event_type', '=', 'machineDeregistered')
        .where('subject', '=', deviceId)
        .execute();
      expect(audit).toHaveLength(1);
    });
  });

  describe('device images', () => {
    it('stores a picture checked by its content and serves it by name only', async () => {
      const token = await ctx().adminToken();
      const deviceId = await registered(ctx(), root);
      const uploaded = await uploadForm(ctx(), '/ui/device/image', token, {
        deviceId,
        file: { filename: '../../x.png', content: onePixelPng, contentType: 'image/png' },
      });
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      const image = uploaded.json<TDevice>().deviceIdentity.image!;
      expect(image).toMatch(/^[a-f0-9]{32}\.png$/);
      const fetched = await ctx().call('GET', `/ui/device/image/${image}`, { token });
      expect(fetched.statusCode).toBe(200);
      expect(fetched.headers['content-type']).toBe('image/png');
      expect(fetched.headers['x-content-type-options']).toBe('nosniff');
      expect(fetched.rawPayload.equals(onePixelPng)).toBe(true);

      const html = await uploadForm(ctx(), '/ui/device/image', token, {
        deviceId,
        file: { filename: 'x.png', content: '<html><script>alert(1)</script>', contentType: 'image/png' },
      });
      expectToken(html, 420, 'imageTypeNotSupported');
      expectToken(
        await uploadForm(ctx(), '/ui/device/image', token, { deviceId: uuid, file: { filename: 'x.png', content: onePixelPng } }),
        420,
        'deviceIdNotValid',
      );
      expectToken(await uploadForm(ctx(), '/ui/device/image', token, { deviceId }), 420, 'uploadFileMissing');

      for (const name of ['..%2F..%2Fetc%2Fpasswd', '..%2Fmanifold.db', `${'a'.repeat(32)}.png%00.txt`, 'ABC.png']) {
        expectToken(await ctx().call('GET', `/ui/device/image/${name}`, { token }), 400, 'malformedRequest');
      }
      expect((await ctx().call('GET', '/ui/device/image/../../etc/passwd', { token })).statusCode).toBe(404);
      expectToken(await ctx().call('GET', `/ui/device/image/${'b'.repeat(32)}.png`, { token }), 404, 'entityDoesNotExist');

      const replaced = await uploadForm(ctx(), '/ui/device/image', token, {
        deviceId,
        file: { filename: 'y.png', content: onePixelPng },
      });
      expect(replaced.json<TDevice>().deviceIdentity.image).not.toBe(image);
      expect((await ctx().call('GET', `/ui/device/image/${image}`, { token })).statusCode).toBe(404);
    });

    it('sets a picture on a machine another change reached first; one for a machine deleted meanwhile leaves nothing', async () => {
      const token = await ctx().adminToken();
      const db = ctx().app.services.database.db;
      const picture = (deviceId: string) =>
        uploadForm(ctx(), '/ui/device/image', token, { deviceId, file: { filename: 'x.png', content: onePixelPng } });
      const deviceImages = async () =>
        (await db.selectFrom('images').select(['name', 'storage_key']).where('owner_kind', '=', 'device').execute()).sort(
          (a, b) => (a.name < b.name ? -1 : 1),
        );
      const imagesBefore = new Set((await deviceImages()).map((row) => row.name));
      const objectsBefore = new Set(await storedObjects(ctx()));
      for (let round = 0; round < 16; round += 1) {
        const deviceId = await registered(ctx(), root);
        const first = await picture(deviceId);
        expect(first.statusCode, first.body).toBe(200);
        const firstImage = first.json<TDevice>().deviceIdentity.image!;
        if (round % 4 === 3) {
          const [pictured, deleted] = await Promise.all([
            picture(deviceId),
            ctx().call('POST', '/ui/device/delete', { token, body: { deviceId, forceDelete: false } }),
          ]);
          expect(deleted.statusCode, deleted.body).toBe(200);
          if (pictured.statusCode !== 200) expectToken(pictured, 420, 'deviceIdNotValid', 'deviceId');
          continue;
        }
        const [pictured, approved, disabled] = await Promise.all([
          picture(deviceId),
          ctx().call('POST', '/ui/device/approve', { token, body: { id: deviceId, approve: true } }),
          ctx().call('POST', '/ui/device/disable', { token, body: { deviceId } }),
        ]);
        expect(approved.statusCode, approved.body).toBe(200);
        expect(disabled.statusCode, disabled.body).toBe(200);
        expect(pictured.statusCode, pictured.body).toBe(200);
        const image = pictured.json<TDevice>().deviceIdentity.image!;
        expect(image).not.toBe(firstImage);
        const row = await db
          .selectFrom('devices')
          .select(['registration_state', 'disabled', 'image'])
          .where('id', '=', deviceId)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ registration_state: 'Approved', disabled: 1, image });
        const events = await db
          .selectFrom('audit_events')
          .select('event_type')
          .where('subject', '=', deviceId)
          .where('event_type', 'in', ['machineApproved', 'machineDisabled', 'machineImageChanged'])
          .execute();
        expect(events.map((e) => e.event_type).sort()).toEqual([
          'machineApproved',
          'machineDisabled',
          'machineImageChanged',
          'machineImageChanged',
        ]);
      }
      // every picture stored by this test and still held is a machine's, and every object it
      // stored is such a picture's: nothing refused or replaced is left behind
      const held = (await deviceImages()).filter((row) => !imagesBefore.has(row.name));
      const shown = await db.selectFrom('devices').select('image').where('image', 'is not', null).execute();
      expect(held.map((row) => row.name).sort()).toEqual(
        shown
          .map((row) => row.image!)
          .filter((name) => !imagesBefore.has(name))
          .sort(),
      );
      expect((await storedObjects(ctx())).filter((key) => !objectsBefore.has(key))).toEqual(
        held.map((row) => row.storage_key).sort(),
      );
    });
  });

  /**
   * Two more server processes on the same database: a decision and a disable reading the machine
   * and then writing it, sent at once to both. On SQLite a transaction that read before another
   * process committed cannot write afterwards (SQLITE_BUSY_SNAPSHOT, whatever busy_timeout says):
   * it must not answer 500.
   */
  describe('across server processes', () => {
    it('decides and disables machines raced over two processes: no 500, each answer what happened', async () => {
      const { config } = ctx();
      const env = serverProcessEnv(config);

      const servers: ServerProcess[] = [];
      try {
        servers.push(...(await Promise.all([startServer(env), startServer(env)])));
        const token = await ctx().adminToken();
        const db = ctx().app.services.database.db;
        const post = (server: ServerProcess, url: string, body: unknown) =>
          fetch(`${server.url}${url}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then(async (response) => ({
            status: response.status,
            body: (await response.json()) as TDevice & { errorToken?: string },
          }));
        for (let round = 0; round < 24; round += 1) {
          const deviceId = await registered(ctx(), root);
          const [first, second] = round % 2 === 0 ? [servers[0]!, servers[1]!] : [servers[1]!, servers[0]!];
          const [approved, rejected, disabledHere, disabledThere] = await Promise.all([
            post(first, '/ui/device/approve', { id: deviceId, approve: true }),
            post(second, '/ui/device/approve', { id: deviceId, approve: false }),
            post(first, '/ui/device/disable', { deviceId }),
            post(second, '/ui/device/disable', { deviceId }),
          ]);
          for (const disabled of [disabledHere, disabledThere]) {
            expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
            expect(disabled.body).toMatchObject({ deviceId, disabled: true });
          }
          const row = await db
            .selectFrom('devices')
            .select(['registration_state', 'disabled'])
            .where('id', '=', deviceId)
            .executeTakeFirstOrThrow();
          expect(row.disabled).toBe(1);
          const decisions = (
            await db
              .selectFrom('audit_events')
              .select('event_type')
              .where('subject', '=', deviceId)
              .where('event_type', 'in', ['machineApproved', 'machineRejected'])
              .orderBy('id')
              .execute()
          ).map((e) => e.event_type);
          if (approved.status !== 200) {
            expect(approved).toMatchObject({ status: 420, body: { errorToken: 'registrationAlreadyRejected' } });
            expect(rejected).toMatchObject({ status: 200, body: { registrationState: 'Rejected' } });
            expect(decisions).toEqual(['machineRejected']);
          } else if (rejected.status !== 200) {
            expect(rejected).toMatchObject({ status: 420, body: { errorToken: 'registrationAlreadyApproved' } });
            expect(approved.body.registrationState).toBe('Approved');
            expect(decisions).toEqual(['machineApproved']);
          } else {
            expect(decisions).toHaveLength(2);
          }
          expect(row.registration_state).toBe(decisions.at(-1) === 'machineApproved' ? 'Approved' : 'Rejected');
          const disables = await db
            .selectFrom('audit_events')
            .select('id')
            .where('subject', '=', deviceId)
            .where('event_type', '=', 'machineDisabled')
            .execute();
          expect(disables).toHaveLength(1);
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }, 120_000);
  });
});
