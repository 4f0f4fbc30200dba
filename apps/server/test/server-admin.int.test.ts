import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pkcs10CertificateRequest } from '@peculiar/x509';
import { afterAll, describe, expect, it } from 'vitest';
import type { TLicenceDocument, TLicensingStatus } from '@manifold/contract';
import { createDevelopmentRootCa } from '../src/crypto/development-ca.js';
import { issueLicence } from '../src/modules/licence/licence-document.js';
import { provisionServer, testMachine, uploadForm } from './helpers/packages-fixtures.js';
import { addOrder, authorize, licensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { describeEachDatabase, expectToken, expectTokens, type TestApp } from './helpers/test-app.js';

const publisher = await createDevelopmentRootCa({ keyType: 'EC', commonName: 'Test Licence Publisher' });
const stranger = await createDevelopmentRootCa({ keyType: 'EC', commonName: 'Someone Else' });
const publisherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifold-licence-'));
const publisherFile = path.join(publisherDir, 'publisher.pem');
fs.writeFileSync(publisherFile, publisher.certificatePem);
afterAll(() => fs.rmSync(publisherDir, { recursive: true, force: true }));

const DAY = 86_400_000;
function licenceDocument(overrides: Partial<TLicenceDocument> = {}): TLicenceDocument {
  return {
    licenceId: `L-${Math.random().toString(36).slice(2, 8)}`,
    holder: 'Acme Manufacturing',
    validFrom: new Date(Date.now() - DAY).toISOString(),
    validUntil: new Date(Date.now() + 365 * DAY).toISOString(),
    limits: { machines: 5, peerInstances: 2 },
    addons: ['designArchive', 'quality', 'secureRepository'],
    ...overrides,
  };
}

const uploadLicence = (ctx: TestApp, token: string, content: string) =>
  uploadForm(ctx, '/ui/admin/upload/licensing', token, { file: { filename: 'site.licence', content } });

/** The newest audit record of a kind. */
async function auditOf(ctx: TestApp, type: string) {
  return ctx.app.services.database.db
    .selectFrom('audit_events')
    .select(['actor', 'subject', 'details'])
    .where('event_type', '=', type)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

const adminCalls: [string, string, unknown?][] = [
  ['GET', '/ui/admin/addons'],
  ['POST', '/ui/admin/addons', { data: [] }],
  ['POST', '/ui/admin/server', { serverSiteName: 'X', serverUrl: 'https://x.example', manageEnabled: true, traceEnabled: true }],
  ['GET', '/ui/admin/licensing/status'],
  ['POST', '/ui/admin/upload/licensing'],
  ['GET', '/ui/admin/blockchain/provider'],
  ['GET', '/ui/admin/blockchain/provider/list'],
  ['POST', '/ui/admin/blockchain/provider', {}],
  ['POST', '/ui/admin/sso', {}],
  ['POST', '/ui/admin/database', {}],
];

describeEachDatabase(
  'server administration',
  (ctx) => {
    let provisioned: ReturnType<typeof provisionServer> | undefined;
    const provisionOnce = () => (provisioned ??= provisionServer(ctx()));
    const serverBody = (overrides: Record<string, unknown> = {}) => ({
      serverSiteName: 'Manifold',
      serverUrl: 'http://127.0.0.1:8080',
      manageEnabled: true,
      traceEnabled: true,
      ...overrides,
    });

    describe('sessions and roles', () => {
      it('every admin call needs a session (401) and the ADMIN role (403)', async () => {
        const { token } = await ctx().createUser();
        for (const [method, url, body] of [...adminCalls, ['GET', '/ui/admin/server'] as [string, string]]) {
          expectToken(await ctx().call(method as 'GET', url, { body }), 401, 'invalidSessionToken');
          if (url === '/ui/admin/server' && method === 'GET') continue; // spec §6: both roles read the server state
          expectToken(await ctx().call(method as 'GET', url, { token, body }), 403, 'actionNotAllowed');
        }
      });

      it('a USER reads the server state', async () => {
        const { token } = await ctx().createUser();
        const response = await ctx().call('GET', '/ui/admin/server', { token });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual(serverBody());
      });
    });

    describe('server settings', () => {
      it('seeds the name and address from SITE_NAME and PUBLIC_URL, switches on', async () => {
        const response = await ctx().call('GET', '/ui/admin/server', { token: await ctx().adminToken() });
        expect(response.json()).toEqual(serverBody());
        const stored = await ctx().app.services.settings.getMany(['serverSiteName', 'manageEnabled', 'traceEnabled']);
        expect(Object.fromEntries(stored)).toEqual({ serverSiteName: 'Manifold', manageEnabled: 'true', traceEnabled: 'true' });
      });

      it('refuses an empty name and an address that is not absolute http(s), naming the fields, and keeps the old values', async () => {
        const token = await ctx().adminToken();
        const response = await ctx().call('POST', '/ui/admin/server', {
          token,
          body: serverBody({ serverSiteName: '  ', serverUrl: 'ftp://files.example' }),
        });
        expect(response.statusCode).toBe(418);
        expect(response.json().data.map((e: { errorToken: string; field: string }) => [e.errorToken, e.field])).toEqual([
          ['serverSiteNameEmpty', 'serverSiteName'],
          ['serverUrlInvalid', 'serverUrl'],
        ]);
        for (const serverUrl of ['/relative', 'https://user:pw@x.example', 'javascript:alert(1)']) {
          const one = await ctx().call('POST', '/ui/admin/server', { token, body: serverBody({ serverUrl }) });
          expect(expectToken(one, 420, 'serverUrlInvalid').field).toBe('serverUrl');
        }
        expect((await ctx().call('GET', '/ui/admin/server', { token })).json()).toEqual(serverBody());
        const malformed = await ctx().call('POST', '/ui/admin/server', { token, body: { serverSiteName: 'x' } });
        expect(malformed.statusCode).toBe(400);
      });

      it('refuses control characters in the site name and the address, naming the field, and keeps the old values', async () => {
        const token = await ctx().adminToken();
        // the controls XML can carry (tab, line feed, carriage return, DEL, C1) reach the settings' own check
        for (const serverSiteName of [
          'Acme\nWorks',
          'Acme Works\r\n',
          'Acme\tWorks',
          'Acme\u007f',
          'Acme\u0085',
          'Acme\u009b2J',
        ]) {
          const one = await ctx().call('POST', '/ui/admin/server', { token, body: serverBody({ serverSiteName }) });
          expectToken(one, 420, 'serverSiteNameEmpty', 'serverSiteName');
        }
        // the other C0 controls never get that far: every request refuses them (input hygiene)
        const escape = await ctx().call('POST', '/ui/admin/server', {
          token,
          body: serverBody({ serverSiteName: 'Acme\u001b[2J' }),
        });
        expectToken(escape, 420, 'invalidCharacters', 'serverSiteName');
        for (const serverUrl of [
          'https://manifold.ex\nample',
          'https://manifold.example/\tpath',
          'https://manifold.example/a\u0085',
        ]) {
          const one = await ctx().call('POST', '/ui/admin/server', { token, body: serverBody({ serverUrl }) });
          expectToken(one, 420, 'serverUrlInvalid', 'serverUrl');
        }
        const both = await ctx().call('POST', '/ui/admin/server', {
          token,
          body: serverBody({ serverSiteName: 'Acme\n', serverUrl: 'https://manifold.example\t' }),
        });
        expect(expectTokens(both).map((e) => [e.errorToken, e.field])).toEqual([
          ['serverSiteNameEmpty', 'serverSiteName'],
          ['serverUrlInvalid', 'serverUrl'],
        ]);
        expect((await ctx().call('GET', '/ui/admin/server', { token })).json()).toEqual(serverBody());
      });

      it('renaming the site changes the brand in the next reply and in a new CSR, and completes the configuration step', async () => {
        const token = await ctx().adminToken();
        await provisionOnce();
        expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'configuration' });
        const saved = await ctx().call('POST', '/ui/admin/server', {
          token,
          body: serverBody({ serverSiteName: ' Acme Works ', serverUrl: 'https://manifold.acme.example/' }),
        });
        expect(saved.statusCode, saved.body).toBe(200);
        expect(saved.json()).toEqual(serverBody({ serverSiteName: 'Acme Works', serverUrl: 'https://manifold.acme.example' }));
        expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'storage' });
        expect(await auditOf(ctx(), 'serverSettingsChanged')).toMatchObject({ actor: 'admin', subject: 'server' });

        const consoleConfig = await ctx().call('GET', '/console-config.json');
        expect(consoleConfig.json()).toMatchObject({ siteName: 'Acme Works', closedFunctions: [] });

        const csrs = (await ctx().call('GET', '/ui/admin/provision?csr=signing', { token })).json<{ signingCSR: string }>();
        const subject = new Pkcs10CertificateRequest(csrs.signingCSR).subject;
        expect(subject).toContain('O=Acme Works');
        expect(subject).toContain('CN=Acme Works manage signing');

        await ctx().call('POST', '/ui/admin/server', { token, body: serverBody() });
        expect((await ctx().call('GET', '/console-config.json')).json().siteName).toBe('Manifold');
      });
    });

    describe('Manage and Trace switches', () => {
      it('switching Trace off refuses its calls with traceFuncitionalityNotEnabled; Manage off likewise; back on, they answer', async () => {
        const token = await ctx().adminToken();
        const { token: userToken } = await ctx().createUser();
        try {
          await ctx().call('POST', '/ui/admin/server', { token, body: serverBody({ traceEnabled: false }) });
          for (const url of ['/ui/event/list', '/ui/build/list', '/ui/part/list']) {
            expectToken(await ctx().call('GET', url, { token }), 420, 'traceFuncitionalityNotEnabled');
          }
          expectToken(await ctx().call('POST', '/apl/event', { body: '<x/>' }), 420, 'traceFuncitionalityNotEnabled');
          expect((await ctx().call('GET', '/ui/order/list', { token: userToken })).statusCode, 'Manage stays on').toBe(200);
          expect((await ctx().call('GET', '/console-config.json')).json().closedFunctions).toEqual(['trace']);
          expect((await ctx().call('GET', '/ui/version', { token })).json().traceVersion).toBeNull();

          await ctx().call('POST', '/ui/admin/server', { token, body: serverBody({ manageEnabled: false }) });
          for (const url of ['/ui/order/list', '/ui/authorization/list', '/ui/manage/list', '/ui/dtl/list']) {
            expectToken(await ctx().call('GET', url, { token: userToken }), 420, 'manageFunctionalityNotEnabled');
          }
          expectToken(await ctx().call('POST', '/stp/order/list', { body: {} }), 420, 'manageFunctionalityNotEnabled');
          expect((await ctx().call('GET', '/ui/event/list', { token })).statusCode).toBe(200);
          expect((await ctx().call('GET', '/ui/user/list', { token })).statusCode, 'ungated calls answer').toBe(200);
          expect((await ctx().call('GET', '/ui/order/list')).statusCode, 'the session is checked first').toBe(401);
        } finally {
          await ctx().call('POST', '/ui/admin/server', { token, body: serverBody() });
        }
        expect((await ctx().call('GET', '/ui/order/list', { token: userToken })).statusCode).toBe(200);
        expect((await ctx().call('GET', '/ui/event/list', { token })).statusCode).toBe(200);
      });
    });

    describe('addons', () => {
      it('lists the three addons, all on by default', async () => {
        const response = await ctx().call('GET', '/ui/admin/addons', { token: await ctx().adminToken() });
        expect(response.json()).toEqual({
          data: [
            { name: 'designArchive', enabled: true },
            { name: 'quality', enabled: true },
            { name: 'secureRepository', enabled: true },
          ],
        });
      });

      it('an unknown name is addonNotFound and nothing changes', async () => {
        const token = await ctx().adminToken();
        const response = await ctx().call('POST', '/ui/admin/addons', {
          token,
          body: {
            data: [
              { name: 'quality', enabled: false },
              { name: 'blockchain', enabled: true },
            ],
          },
        });
        expect(expectToken(response, 420, 'addonNotFound').field).toBe('data[1].name');
        expect((await ctx().call('GET', '/ui/admin/addons', { token })).json().data[1]).toEqual({
          name: 'quality',
          enabled: true,
        });
      });

      it("a disabled addon's calls answer addonNotEnabled until it is enabled again", async () => {
        const token = await ctx().adminToken();
        const off = await ctx().call('POST', '/ui/admin/addons', {
          token,
          body: { data: [{ name: 'designArchive', enabled: false }] },
        });
        expect(off.json().data[0]).toEqual({ name: 'designArchive', enabled: false });
        expect(await auditOf(ctx(), 'addonsChanged')).toMatchObject({ actor: 'admin', subject: 'addons' });
        expectToken(await ctx().call('GET', '/ui/das/list', { token }), 420, 'addonNotEnabled');
        expect((await ctx().call('GET', '/console-config.json')).json().closedFunctions).toEqual(['designArchive']);
        await ctx().call('POST', '/ui/admin/addons', { token, body: { data: [{ name: 'designArchive', enabled: true }] } });
        expect((await ctx().call('GET', '/ui/das/list', { token })).statusCode).toBe(200);
      });
    });

    describe('what the spec leaves unimplemented', () => {
      it('describes the blockchain provider truthfully: none', async () => {
        const token = await ctx().adminToken();
        expect((await ctx().call('GET', '/ui/admin/blockchain/provider', { token })).json()).toEqual({
          identifier: null,
          configured: false,
        });
        expect((await ctx().call('GET', '/ui/admin/blockchain/provider/list', { token })).json()).toEqual({ data: [] });
      });

      it('POST admin/blockchain/provider, admin/sso and admin/database answer 501 functionNotImplemented', async () => {
        const token = await ctx().adminToken();
        for (const url of ['/ui/admin/blockchain/provider', '/ui/admin/sso', '/ui/admin/database']) {
          expectToken(await ctx().call('POST', url, { token, body: {} }), 501, 'functionNotImplemented');
        }
      });
    });

    describe('operating licence', () => {
      it('without a licence nothing is limited and the status says so', async () => {
        const response = await ctx().call('GET', '/ui/admin/licensing/status', { token: await ctx().adminToken() });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject({
          installed: false,
          publisher: expect.stringContaining('Test Licence Publisher'),
          licence: null,
          state: 'none',
          usage: { machines: { limit: null }, peerInstances: { limit: null } },
        });
      });

      it('refuses a licence signed by another key, one edited by one byte, an expired one, and a non-licence; nothing changes', async () => {
        const token = await ctx().adminToken();
        const before = (await ctx().call('GET', '/ui/admin/licensing/status', { token })).json();
        const otherKey = await issueLicence(licenceDocument(), stranger.privateKeyPem);
        expect(expectToken(await uploadLicence(ctx(), token, otherKey), 420, 'licenceInvalid').field).toBe('file');

        const genuine = await issueLicence(licenceDocument({ limits: { machines: 1000 } }), publisher.privateKeyPem);
        const [header, payload, signature] = genuine.split('.');
        const json = Buffer.from(payload!, 'base64url').toString('utf8').replace('1000', '9000');
        const edited = `${header}.${Buffer.from(json).toString('base64url')}.${signature}`;
        expectToken(await uploadLicence(ctx(), token, edited), 420, 'licenceInvalid');
        const flipped = genuine.slice(0, 40) + (genuine[40] === 'A' ? 'B' : 'A') + genuine.slice(41);
        expectToken(await uploadLicence(ctx(), token, flipped), 420, 'licenceInvalid');

        const expired = await issueLicence(
          licenceDocument({
            validFrom: new Date(Date.now() - 10 * DAY).toISOString(),
            validUntil: new Date(Date.now() - DAY).toISOString(),
          }),
          publisher.privateKeyPem,
        );
        expectToken(await uploadLicence(ctx(), token, expired), 420, 'licenceExpired');
        expectToken(await uploadLicence(ctx(), token, 'not a licence at all'), 420, 'licenceInvalid');
        expectToken(await uploadForm(ctx(), '/ui/admin/upload/licensing', token, { other: 'x' }), 420, 'uploadFileMissing');
        expect((await ctx().call('GET', '/ui/admin/licensing/status', { token })).json()).toEqual(before);
      });

      it('installs a licence signed by the configured publisher, reports it, warns ahead of expiry and enforces its limits', async () => {
        const token = await ctx().adminToken();
        const { root } = await provisionOnce();
        const register = async () =>
          ctx().call('POST', '/apl/registration/add', { body: await (await testMachine(root)).request() });
        expect((await register()).statusCode).toBe(200);

        const document = licenceDocument({
          validUntil: new Date(Date.now() + 10 * DAY).toISOString(),
          limits: { machines: 2 },
          addons: ['quality'],
        });
        const installed = await uploadLicence(ctx(), token, await issueLicence(document, publisher.privateKeyPem));
        expect(installed.statusCode, installed.body).toBe(200);
        const status = installed.json<TLicensingStatus>();
        expect(status).toMatchObject({
          installed: true,
          licence: { licenceId: document.licenceId, holder: 'Acme Manufacturing', addons: ['quality'] },
          state: 'expiring',
          usage: { machines: { used: 1, limit: 2 }, peerInstances: { limit: null } },
        });
        expect(status.daysLeft).toBeGreaterThanOrEqual(9);
        expect(await auditOf(ctx(), 'operatingLicenceInstalled')).toMatchObject({ actor: 'admin', subject: document.licenceId });

        expect((await register()).statusCode).toBe(200);
        const refused = await register();
        expectToken(refused, 420, 'licenceMachineLimitReached');

        // addons outside the licence are off and cannot be switched on
        expect((await ctx().call('GET', '/ui/admin/addons', { token })).json().data).toEqual([
          { name: 'designArchive', enabled: false },
          { name: 'quality', enabled: true },
          { name: 'secureRepository', enabled: false },
        ]);
        expectToken(await ctx().call('GET', '/ui/das/list', { token }), 420, 'addonNotEnabled');
        const unlicensed = await ctx().call('POST', '/ui/admin/addons', {
          token,
          body: { data: [{ name: 'secureRepository', enabled: true }] },
        });
        expect(expectToken(unlicensed, 420, 'addonNotLicensed').field).toBe('data[0].name');

        // a later licence replaces it
        const wider = await uploadLicence(ctx(), token, await issueLicence(licenceDocument(), publisher.privateKeyPem));
        expect(wider.json()).toMatchObject({ state: 'valid', usage: { machines: { used: 2, limit: 5 } } });
        expect((await register()).statusCode).toBe(200);
        expect((await ctx().call('GET', '/ui/das/list', { token })).statusCode).toBe(200);
      });
    });
  },
  { LICENCE_PUBLISHER_CERT: publisherFile },
);

describeEachDatabase('operating licence without a configured publisher', (ctx) => {
  it('refuses an upload with licencePublisherNotConfigured', async () => {
    const token = await ctx().adminToken();
    const file = await issueLicence(licenceDocument(), publisher.privateKeyPem);
    expectToken(await uploadLicence(ctx(), token, file), 420, 'licencePublisherNotConfigured');
    expect((await ctx().call('GET', '/ui/admin/licensing/status', { token })).json()).toMatchObject({
      installed: false,
      publisher: null,
    });
  });
});

describeEachDatabase('documents sent to peers carry the server settings', (ctx) => {
  it('a signed authorization names the configured serverUrl as its issuer', async () => {
    const token = await ctx().adminToken();
    const world = await licensingWorld(ctx());
    const orderId = await addOrder(ctx(), policyFor(world));
    const authorizationId = await authorize(ctx(), { orderId, deviceId: world.deviceId, quantity: 1 });
    const issuer = async () => {
      const response = await ctx().call(
        'GET',
        `/ui/authorization/download?orderId=${orderId}&authorizationId=${authorizationId}`,
        {
          token,
        },
      );
      expect(response.statusCode, response.body).toBe(200);
      return /<Issuer manageUrl="([^"]*)"/.exec(response.body)?.[1];
    };
    expect(await issuer()).toBe('http://127.0.0.1:8080');
    const saved = await ctx().call('POST', '/ui/admin/server', {
      token,
      body: { serverSiteName: 'Acme', serverUrl: 'https://manifold.acme.example', manageEnabled: true, traceEnabled: true },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await issuer()).toBe('https://manifold.acme.example');
  });
});
