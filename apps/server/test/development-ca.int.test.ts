import { describe, expect, it } from 'vitest';
import type { TProvisionCertificates } from '@manifold/contract';
import { pathOf, runTool, withTempFiles } from '../src/crypto/crypto-test-helpers.js';
import { describeEachDatabase } from './helpers/test-app.js';

describeEachDatabase(
  'development CA (DEVELOPMENT_CA=true)',
  (ctx) => {
    const url = '/ui/admin/provision/development-ca';

    describe(`POST ${url}`, () => {
      it('should require authentication', async () => {
        expect((await ctx().call('POST', url)).statusCode).toBe(401);
      });

      it('is for ADMIN only', async () => {
        const { token } = await ctx().createUser();
        expect((await ctx().call('POST', url, { token })).statusCode).toBe(403);
      });

      it('answers provisionNotInitialized before the keys exist, and creates no CA', async () => {
        const response = await ctx().call('POST', url, { token: await ctx().adminToken() });
        expect(response.statusCode).toBe(420);
        expect(response.json()).toMatchObject({ errorToken: 'provisionNotInitialized' });
        expect(await ctx().app.services.database.db.selectFrom('development_ca').selectAll().execute()).toEqual([]);
      });

      it('creates a development root, trusts it and installs certificates for both keys, completing the crypto steps', async () => {
        const token = await ctx().adminToken();
        expect((await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC' } })).statusCode).toBe(200);
        const response = await ctx().call('POST', url, { token });
        expect(response.statusCode, response.body).toBe(200);
        const view = response.json<TProvisionCertificates>();
        expect(view.keyType).toBe('EC');
        expect(view.developmentCaEnabled).toBe(true);
        expect(view.trustAnchors).toHaveLength(1);
        expect(view.trustAnchors[0]).toMatchObject({
          subject: expect.stringContaining('not for production'),
          development: true,
          keyType: 'EC',
        });
        expect(view.signing).toMatchObject({ subject: 'CN=Manifold manage signing, O=Manifold, OU=manage', development: true });
        expect(view.encryption).toMatchObject({
          subject: 'CN=Manifold manage encryption, O=Manifold, OU=manage',
          development: true,
        });
        expect(view.signing!.issuer).toBe(view.trustAnchors[0]!.subject);
        expect(view.encryption!.keyUsage).toContain('keyAgreement');
        expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'configuration' });
        expect(
          await ctx()
            .call('GET', '/ui/admin/provision/certificates', { token })
            .then((r) => r.json()),
        ).toEqual(view);
      });

      it('issues certificates openssl verifies against the development root', async () => {
        const { credentials } = ctx().app.services;
        const [root] = await credentials.trustAnchors();
        for (const identity of [await credentials.signingIdentity(), await credentials.encryptionIdentity()]) {
          const result = withTempFiles({ 'root.pem': root!, 'leaf.pem': identity.certificatePem }, (paths) =>
            runTool('openssl', ['verify', '-CAfile', pathOf(paths, 'root.pem'), pathOf(paths, 'leaf.pem')]),
          );
          expect(result.stdout, result.stderr).toMatch(/OK/);
        }
      });

      it('signs XML that xmlsec1 verifies against the development root, via the certificate in KeyInfo', async () => {
        const { credentials } = ctx().app.services;
        const [root] = await credentials.trustAnchors();
        const signed = await credentials.signXml(
          '<authorization xmlns="urn:manifold:authorization"><quantity>2</quantity></authorization>',
        );
        const result = withTempFiles({ 'root.pem': root!, 'signed.xml': signed }, (paths) =>
          runTool('xmlsec1', ['--verify', '--trusted-pem', pathOf(paths, 'root.pem'), pathOf(paths, 'signed.xml')]),
        );
        expect(result.status, result.stderr).toBe(0);
        expect(result.stderr).toMatch(/OK/);
      });

      it('keeps the development CA key sealed and reuses the same CA on a second call', async () => {
        const { db } = ctx().app.services.database;
        const [before] = await db.selectFrom('development_ca').selectAll().execute();
        expect(before!.sealed_private_key).toMatch(/^v1\./);
        const firstSerial = (await ctx().app.services.provision.certificates()).signing!.serialNumber;
        const response = await ctx().call('POST', url, { token: await ctx().adminToken() });
        expect(response.statusCode).toBe(200);
        const view = response.json<TProvisionCertificates>();
        expect(view.trustAnchors).toHaveLength(1);
        expect(view.signing!.serialNumber).not.toBe(firstSerial);
        expect(await db.selectFrom('development_ca').selectAll().execute()).toEqual([before]);
        const everything = JSON.stringify(
          await Promise.all([
            db.selectFrom('development_ca').selectAll().execute(),
            db.selectFrom('server_key_pairs').selectAll().execute(),
            db.selectFrom('server_certificates').selectAll().execute(),
            db.selectFrom('trust_anchors').selectAll().execute(),
            db.selectFrom('audit_events').selectAll().execute(),
          ]),
        );
        expect(everything).not.toContain('PRIVATE KEY');
      });

      it('recorded the CA, the trust anchor and the certificates in the audit log', async () => {
        const rows = await ctx()
          .app.services.database.db.selectFrom('audit_events')
          .select(['event_type', 'subject'])
          .where('event_type', 'in', ['developmentCaCreated', 'trustAnchorAdded', 'serverCertificateInstalled'])
          .orderBy('id')
          .execute();
        expect(rows.map((row) => row.event_type)).toEqual([
          'developmentCaCreated',
          'trustAnchorAdded',
          'serverCertificateInstalled',
          'serverCertificateInstalled',
          'serverCertificateInstalled',
          'serverCertificateInstalled',
        ]);
      });

      it('after a re-key to RSA signs the new keys with the same development CA', async () => {
        const token = await ctx().adminToken();
        expect(
          (await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'RSA', rekey: true } })).statusCode,
        ).toBe(200);
        expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'signCert' });
        const response = await ctx().call('POST', url, { token });
        expect(response.statusCode, response.body).toBe(200);
        const view = response.json<TProvisionCertificates>();
        expect(view).toMatchObject({
          keyType: 'RSA',
          signing: { keyType: 'RSA', development: true },
          encryption: { keyType: 'RSA' },
        });
        expect(view.encryption!.keyUsage).toContain('keyEncipherment');
        expect(view.trustAnchors).toHaveLength(1);
        expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'configuration' });
      });
    });
  },
  { DEVELOPMENT_CA: 'true' },
);
