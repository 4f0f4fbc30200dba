import { createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TCsrResponse, TProvisionCertificates, TProvisionUploadResponse } from '@manifold/contract';
import { pathOf, runTool, withTempFiles } from '../src/crypto/crypto-test-helpers.js';
import { createCsr } from '../src/crypto/csr.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { generateKeyPair } from '../src/crypto/key-pairs.js';
import os from 'node:os';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { KEY_ENCRYPTION_KEY_FILE, loadKeyEncryptionKey } from '../src/modules/provision/key-encryption-key.js';
import { multipartForm, type FormFile } from './helpers/multipart.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';
import { DAY_MS, issue, testIntermediate, testRoot } from './helpers/test-pki.js';

const pemFile = (content: string | Buffer): FormFile => ({ filename: 'certificate.pem', content });

async function upload(ctx: TestApp, token: string, fields: Record<string, string | FormFile>) {
  const { body, headers } = multipartForm(fields);
  return ctx.call('POST', '/ui/admin/upload/provision', { token, body, headers });
}

async function csrs(ctx: TestApp, token: string, query = ''): Promise<TCsrResponse> {
  const response = await ctx.call('GET', `/ui/admin/provision${query}`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TCsrResponse>();
}

async function certificates(ctx: TestApp, token: string): Promise<TProvisionCertificates> {
  const response = await ctx.call('GET', '/ui/admin/provision/certificates', { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TProvisionCertificates>();
}

async function step(ctx: TestApp): Promise<string> {
  return (await ctx.call('GET', '/ui/admin/state')).json<{ step: string }>().step;
}

function openssl(args: (paths: Record<string, string>) => string[], files: Record<string, string>) {
  return withTempFiles(files, (paths) => runTool('openssl', args(paths)));
}

/** Every text column of the credential tables, as one string. */
async function storedCredentialText(ctx: TestApp): Promise<string> {
  const { db } = ctx.app.services.database;
  const tables = await Promise.all([
    db.selectFrom('server_key_pairs').selectAll().execute(),
    db.selectFrom('server_certificates').selectAll().execute(),
    db.selectFrom('trust_anchors').selectAll().execute(),
    db.selectFrom('development_ca').selectAll().execute(),
  ]);
  return JSON.stringify(tables);
}

describeEachDatabase('keys and certificates', (ctx) => {
  const endpoints = [
    ['POST', '/ui/admin/provision', { keyType: 'EC' }],
    ['GET', '/ui/admin/provision', undefined],
    ['POST', '/ui/admin/upload/provision', undefined],
    ['GET', '/ui/admin/provision/certificates', undefined],
    ['POST', '/ui/admin/provision/development-ca', {}],
  ] as const;

  describe('every provisioning endpoint', () => {
    it('should require authentication', async () => {
      for (const [method, url, body] of endpoints) {
        expectToken(await ctx().call(method, url, body ? { body } : {}), 401, 'invalidSessionToken');
      }
    });

    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      for (const [method, url, body] of endpoints) {
        expectToken(await ctx().call(method, url, { token, ...(body ? { body } : {}) }), 403, 'actionNotAllowed');
      }
    });
  });

  describe('before the keys exist', () => {
    it('answers provisionNotInitialized for CSRs and certificate uploads, and the wizard is at crypto', async () => {
      const token = await ctx().adminToken();
      expectToken(await ctx().call('GET', '/ui/admin/provision', { token }), 420, 'provisionNotInitialized');
      const root = await testRoot('Early Root');
      expectToken(
        await upload(ctx(), token, { certificateType: 'signing', file: pemFile(root.certificatePem) }),
        420,
        'provisionNotInitialized',
      );
      expect(await certificates(ctx(), token)).toEqual({
        keyType: null,
        signing: null,
        encryption: null,
        trustAnchors: [],
        developmentCaEnabled: false,
      });
      expect(await step(ctx())).toBe('crypto');
    });
  });

  describe('POST /ui/admin/provision', () => {
    it('refuses a key type other than RSA or EC as a business error, and a wrong JSON type as malformed', async () => {
      const token = await ctx().adminToken();
      for (const body of [{ keyType: 'DSA' }, { keyType: 'rsa' }, {}, { keyType: null }, { keyType: 'X'.repeat(40) }]) {
        const response = await ctx().call('POST', '/ui/admin/provision', { token, body });
        expectToken(response, 420, 'keyTypeInvalid');
        expect(response.json()).toMatchObject({ field: 'keyType' });
      }
      expectToken(await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 5 } }), 400, 'malformedRequest');
      expectToken(
        await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: 'yes' } }),
        400,
        'malformedRequest',
      );
      expect(await step(ctx())).toBe('crypto');
    });

    it('creates RSA 3072 key pairs, sealed at rest under a 0600 key-encryption key, and completes the crypto step', async () => {
      const token = await ctx().adminToken();
      const response = await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'RSA' } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ keyType: 'RSA', generation: 1 });
      expect(await step(ctx())).toBe('signCert');
      expect((await certificates(ctx(), token)).keyType).toBe('RSA');

      const keyFile = path.join(ctx().config.dataDir, KEY_ENCRYPTION_KEY_FILE);
      expect((await fs.stat(keyFile)).mode & 0o777).toBe(0o600);
      expect(Buffer.from((await fs.readFile(keyFile, 'utf8')).trim(), 'base64')).toHaveLength(32);
      const stored = await storedCredentialText(ctx());
      expect(stored).toContain('BEGIN PUBLIC KEY');
      expect(stored).not.toContain('PRIVATE KEY');
      const rows = await ctx().app.services.database.db.selectFrom('server_key_pairs').selectAll().execute();
      expect(rows.map((row) => row.purpose).sort()).toEqual(['encryption', 'signing']);
      for (const row of rows) expect(row.sealed_private_key).toMatch(/^v1\./);
    });

    it('answers provisionAlreadyIntialized to a second call without rekey', async () => {
      const token = await ctx().adminToken();
      const before = await ctx().app.services.database.db.selectFrom('server_key_pairs').select('public_key_pem').execute();
      expectToken(
        await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC' } }),
        420,
        'provisionAlreadyIntialized',
      );
      expectToken(
        await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: false } }),
        420,
        'provisionAlreadyIntialized',
      );
      const after = await ctx().app.services.database.db.selectFrom('server_key_pairs').select('public_key_pem').execute();
      expect(after).toEqual(before);
    });
  });

  describe('GET /ui/admin/provision', () => {
    it('answers both CSRs by default, accepted by openssl req -verify, with the site name, service and RSA 3072 key', async () => {
      const { signingCSR, encryptionCSR } = await csrs(ctx(), await ctx().adminToken());
      for (const [purpose, csr] of [
        ['signing', signingCSR],
        ['encryption', encryptionCSR],
      ] as const) {
        expect(csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
        const result = openssl((p) => ['req', '-in', pathOf(p, 'csr.pem'), '-noout', '-verify', '-subject', '-text'], {
          'csr.pem': csr!,
        });
        expect(result.status, result.stderr).toBe(0);
        expect(`${result.stdout}${result.stderr}`).toMatch(/verify OK/i);
        expect(result.stdout).toMatch(new RegExp(`CN\\s*=\\s*Manifold manage ${purpose}`));
        expect(result.stdout).toMatch(/O\s*=\s*Manifold/);
        expect(result.stdout).toMatch(/OU\s*=\s*manage/);
        expect(result.stdout).toMatch(/Public-Key: \(3072 bit\)/);
        expect(result.stdout).toMatch(purpose === 'signing' ? /Digital Signature/ : /Key Encipherment/);
      }
    });

    it('answers only the CSR asked for, for the service asked for', async () => {
      const token = await ctx().adminToken();
      const signing = await csrs(ctx(), token, '?csr=signing&service=trace');
      expect(signing.encryptionCSR).toBeNull();
      const subject = openssl((p) => ['req', '-in', pathOf(p, 'csr.pem'), '-noout', '-subject'], {
        'csr.pem': signing.signingCSR!,
      });
      expect(subject.stdout).toMatch(/OU\s*=\s*trace/);
      const encryption = await csrs(ctx(), token, '?csr=encryption');
      expect(encryption.signingCSR).toBeNull();
      expect(encryption.encryptionCSR).toMatch(/BEGIN CERTIFICATE REQUEST/);
      const both = await csrs(ctx(), token, '?csr=both&service=protect');
      expect(both.signingCSR && both.encryptionCSR).toBeTruthy();
    });

    it('makes CSRs for the longest site name the settings take: the CN shortened to 64 characters, O whole', async () => {
      const token = await ctx().adminToken();
      const { settings } = ctx().app.services;
      const before = await settings.get('serverSiteName');
      expect(before).toBeDefined();
      const site = `Acme Additive Manufacturing, Plant Number 01 and 02 ${'x'.repeat(64)}`.slice(0, 64);
      expect(site).toHaveLength(64);
      await settings.set('serverSiteName', site);
      try {
        const both = await csrs(ctx(), token, '?csr=both&service=manage');
        const subject = openssl((p) => ['req', '-in', pathOf(p, 'csr.pem'), '-noout', '-subject', '-nameopt', 'sep_multiline'], {
          'csr.pem': both.encryptionCSR!,
        }).stdout;
        const cn = /CN=(.*)/.exec(subject)![1]!;
        // the site name cut to leave room for its suffix (18 characters), without a trailing space
        expect(cn).toBe(`${site.slice(0, 64 - ' manage encryption'.length).trimEnd()} manage encryption`);
        expect(/O=(.*)/.exec(subject)![1]).toBe(site);
      } finally {
        await settings.set('serverSiteName', before!);
      }
    });

    it('refuses a csr or service outside the spec lists as business errors', async () => {
      const token = await ctx().adminToken();
      const csr = await ctx().call('GET', '/ui/admin/provision?csr=all', { token });
      expectToken(csr, 420, 'csrParameterInvalid');
      expect(csr.json()).toMatchObject({ field: 'csr' });
      expectToken(await ctx().call('GET', '/ui/admin/provision?service=factory', { token }), 420, 'serviceInvalid');
      const long = 'x'.repeat(40);
      expectToken(await ctx().call('GET', `/ui/admin/provision?csr=${long}`, { token }), 420, 'csrParameterInvalid');
      expectToken(await ctx().call('GET', `/ui/admin/provision?service=${long}`, { token }), 420, 'serviceInvalid');
      expectToken(await ctx().call('GET', '/ui/admin/provision?csr=a&csr=b', { token }), 400, 'malformedRequest');
    });
  });

  describe('re-keying', () => {
    it('replaces both key pairs with EC P-256 ones on rekey: true', async () => {
      const token = await ctx().adminToken();
      const response = await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: true } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ keyType: 'EC', generation: 2 });
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const text = openssl((p) => ['req', '-in', pathOf(p, 'csr.pem'), '-noout', '-text', '-verify'], { 'csr.pem': signingCSR! });
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(/prime256v1|P-256/);
      expect(await step(ctx())).toBe('signCert');
    });
  });

  describe('POST /ui/admin/upload/provision', () => {
    let root: DevelopmentCa;
    let otherRoot: DevelopmentCa;

    const nothingInstalled = async (purpose: 'signing' | 'encryption') => {
      expect((await certificates(ctx(), await ctx().adminToken()))[purpose]).toBeNull();
    };

    it('refuses a server certificate while no trust anchor is configured', async () => {
      root = await testRoot('Network Root');
      otherRoot = await testRoot('Stranger Root');
      const token = await ctx().adminToken();
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'signing', file: pemFile(await issue(root, signingCSR!)) }),
        420,
        'certificateExchangeChainVerifyFail',
      ).errorDescription;
      expect(description).toMatch(/No trust anchor/);
      await nothingInstalled('signing');
    });

    it('refuses a trust anchor that is not a CA certificate', async () => {
      const token = await ctx().adminToken();
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'trustAnchor', file: pemFile(await issue(root, signingCSR!)) }),
        420,
        'trustAnchorInvalid',
      ).errorDescription;
      expect(description).toMatch(/not a certificate authority/);
      expect((await certificates(ctx(), token)).trustAnchors).toEqual([]);
    });

    it('adds a network root as trust anchor (fields in any order), idempotently', async () => {
      const token = await ctx().adminToken();
      const response = await upload(ctx(), token, { file: pemFile(root.certificatePem), certificateType: 'trustAnchor' });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<TProvisionUploadResponse>();
      expect(body).toMatchObject({ certificateType: 'trustAnchor', chain: [] });
      expect(body.certificate).toMatchObject({
        subject: expect.stringContaining('CN=Network Root'),
        keyType: 'EC',
        development: false,
      });
      expect(body.certificate.keyUsage).toContain('keyCertSign');
      const again = await upload(ctx(), token, { certificateType: 'trustAnchor', file: pemFile(root.certificatePem) });
      expect(again.statusCode).toBe(200);
      expect((await certificates(ctx(), token)).trustAnchors).toHaveLength(1);
      expect(await step(ctx())).toBe('signCert');
    });

    it('reads certificateType, a text field of its declared form, as text even sent as application/octet-stream', async () => {
      const token = await ctx().adminToken();
      const boundary = 'octet-boundary';
      const part = (name: string, value: string, headers = '') =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${value}\r\n`;
      const send = (...parts: string[]) =>
        ctx().call('POST', '/ui/admin/upload/provision', {
          token,
          body: [...parts, `--${boundary}--\r\n`].join(''),
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
      const octet = 'Content-Type: application/octet-stream\r\n';
      const file = part('file', root.certificatePem, octet);
      for (const form of [
        [part('certificateType', 'trustAnchor', octet), file],
        [file, part('certificateType', 'trustAnchor', octet)],
      ]) {
        const response = await send(...form);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json<TProvisionUploadResponse>().certificateType).toBe('trustAnchor');
      }
      expect((await certificates(ctx(), token)).trustAnchors).toHaveLength(1);
      // with the limits of the route's text fields (1 KiB), not of its file
      const long = expectToken(await send(part('certificateType', 'x'.repeat(1025), octet), file), 413, 'payloadTooLarge');
      expect(long).toMatchObject({
        field: 'certificateType',
        errorDescription: 'The field certificateType may have at most 1 KiB',
      });
    });

    it('installs the signing certificate issued for the CSR and moves the wizard to cryptCert', async () => {
      const token = await ctx().adminToken();
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const certificatePem = await issue(root, signingCSR!);
      const response = await upload(ctx(), token, { certificateType: 'signing', file: pemFile(certificatePem) });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<TProvisionUploadResponse>();
      expect(body.certificateType).toBe('signing');
      expect(body.certificate).toMatchObject({
        subject: 'CN=Manifold manage signing, O=Manifold, OU=manage',
        issuer: expect.stringContaining('CN=Network Root'),
        keyType: 'EC',
        development: false,
      });
      expect(body.certificate.keyUsage).toEqual(expect.arrayContaining(['digitalSignature']));
      expect(body.certificate.serialNumber).toMatch(/^[0-9A-F]+$/);
      expect(body.certificate.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      expect(new Date(body.certificate.notAfter).getTime()).toBeGreaterThan(Date.now());
      expect(body.chain.map((c) => c.subject)).toEqual([expect.stringContaining('CN=Network Root')]);
      expect(await step(ctx())).toBe('cryptCert');
      expect((await certificates(ctx(), token)).signing).toEqual(body.certificate);
    });

    it('refuses a certificate from another chain, saying the root is untrusted, and stores nothing', async () => {
      const token = await ctx().adminToken();
      const { encryptionCSR } = await csrs(ctx(), token, '?csr=encryption');
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(await issue(otherRoot, encryptionCSR!)) }),
        420,
        'certificateExchangeChainVerifyFail',
      ).errorDescription;
      expect(description).toMatch(/untrustedRoot/);
      expect(description).toMatch(/Stranger Root/);
      await nothingInstalled('encryption');
    });

    it('refuses an expired certificate, saying it expired', async () => {
      const token = await ctx().adminToken();
      const { encryptionCSR } = await csrs(ctx(), token, '?csr=encryption');
      const expired = await issue(root, encryptionCSR!, {
        notBefore: new Date(Date.now() - 400 * DAY_MS),
        notAfter: new Date(Date.now() - DAY_MS),
      });
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(expired) }),
        420,
        'certificateExchangeChainVerifyFail',
      ).errorDescription;
      expect(description).toMatch(/\(expired\).*expired on/);
      await nothingInstalled('encryption');
    });

    it('refuses a certificate that is not yet valid', async () => {
      const token = await ctx().adminToken();
      const { encryptionCSR } = await csrs(ctx(), token, '?csr=encryption');
      const future = await issue(root, encryptionCSR!, { notBefore: new Date(Date.now() + 10 * DAY_MS) });
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(future) }),
        420,
        'certificateExchangeChainVerifyFail',
      ).errorDescription;
      expect(description).toMatch(/notYetValid/);
      await nothingInstalled('encryption');
    });

    it('refuses a certificate for another key, saying it does not match the key', async () => {
      const token = await ctx().adminToken();
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const { privateKeyPem } = await generateKeyPair('EC');
      const strangerCsr = await createCsr({ siteName: 'Manifold', service: 'manage', purpose: 'encryption', privateKeyPem });
      for (const wrong of [await issue(root, strangerCsr), await issue(root, signingCSR!)]) {
        const description = expectToken(
          await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(wrong) }),
          420,
          'provisionCsrInvalid',
        ).errorDescription;
        expect(description).toMatch(/does not match this server's encryption key/);
      }
      await nothingInstalled('encryption');
    });

    it('refuses a certificate for the right key whose key usage does not fit the purpose', async () => {
      const token = await ctx().adminToken();
      const { privateKeyPem } = await ctx().app.services.credentials.key('encryption');
      const signingUsageCsr = await createCsr({ siteName: 'Manifold', service: 'manage', purpose: 'signing', privateKeyPem });
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(await issue(root, signingUsageCsr)) }),
        420,
        'provisionCsrInvalid',
      ).errorDescription;
      expect(description).toMatch(/key usage .* lacks keyAgreement/);
      await nothingInstalled('encryption');
    });

    it('refuses garbage that is not a PEM certificate', async () => {
      const token = await ctx().adminToken();
      for (const garbage of [
        'hello',
        '-----BEGIN CERTIFICATE-----\nnot base64 !!\n-----END CERTIFICATE-----\n',
        Buffer.from([0, 1, 2, 255, 254]),
        '',
      ]) {
        const description = expectToken(
          await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(garbage) }),
          420,
          'provisionCsrInvalid',
        ).errorDescription;
        expect(description).toMatch(/not a PEM certificate/);
      }
      await nothingInstalled('encryption');
    });

    it('refuses an oversized file with 413 payloadTooLarge', async () => {
      const token = await ctx().adminToken();
      const huge = `${root.certificatePem}\n${'A'.repeat(300 * 1024)}`;
      const description = expectToken(
        await upload(ctx(), token, { certificateType: 'encryption', file: pemFile(huge) }),
        413,
        'payloadTooLarge',
      ).errorDescription;
      expect(description).toMatch(/256 KiB/);
      await nothingInstalled('encryption');
    });

    it('refuses a form without a file, without or with a wrong certificateType, and a body that is not multipart', async () => {
      const token = await ctx().adminToken();
      const { encryptionCSR } = await csrs(ctx(), token, '?csr=encryption');
      const good = pemFile(await issue(root, encryptionCSR!));
      expectToken(await upload(ctx(), token, { certificateType: 'encryption' }), 420, 'uploadFileMissing');
      expectToken(await upload(ctx(), token, { file: good }), 420, 'certificateTypeInvalid');
      expectToken(await upload(ctx(), token, { certificateType: 'root', file: good }), 420, 'certificateTypeInvalid');
      expectToken(
        await ctx().call('POST', '/ui/admin/upload/provision', { token, body: { certificateType: 'encryption' } }),
        400,
        'malformedRequest',
      );
      const broken = await ctx().call('POST', '/ui/admin/upload/provision', {
        token,
        body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expectToken(broken, 400, 'malformedRequest');
      const noBoundary = await ctx().call('POST', '/ui/admin/upload/provision', {
        token,
        body: 'x',
        headers: { 'content-type': 'multipart/form-data' },
      });
      expectToken(noBoundary, 400, 'malformedRequest');
      await nothingInstalled('encryption');
    });

    it('installs an encryption certificate issued through an intermediate CA, storing the chain, and completes cryptCert', async () => {
      const token = await ctx().adminToken();
      const intermediate = await testIntermediate(root, 'Network Issuing CA');
      const { encryptionCSR } = await csrs(ctx(), token, '?csr=encryption');
      const leaf = await issue(intermediate, encryptionCSR!);
      const response = await upload(ctx(), token, {
        certificateType: 'encryption',
        file: pemFile(`${leaf}\n${intermediate.certificatePem}`),
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<TProvisionUploadResponse>();
      expect(body.certificate.keyUsage).toContain('keyAgreement');
      expect(body.chain.map((c) => c.subject)).toEqual([
        expect.stringContaining('CN=Network Issuing CA'),
        expect.stringContaining('CN=Network Root'),
      ]);
      expect(await step(ctx())).toBe('configuration');
      const identity = await ctx().app.services.credentials.encryptionIdentity();
      expect(identity.chainPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
      expect(await storedCredentialText(ctx())).not.toContain('PRIVATE KEY');
    });

    it('replaces the installed certificate on a new upload for the same purpose', async () => {
      const token = await ctx().adminToken();
      const before = (await certificates(ctx(), token)).signing!;
      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const response = await upload(ctx(), token, { certificateType: 'signing', file: pemFile(await issue(root, signingCSR!)) });
      expect(response.statusCode).toBe(200);
      const after = (await certificates(ctx(), token)).signing!;
      expect(after.serialNumber).not.toBe(before.serialNumber);
      const rows = await ctx().app.services.database.db.selectFrom('server_certificates').select('purpose').execute();
      expect(rows.map((row) => row.purpose).sort()).toEqual(['encryption', 'signing']);
    });

    it('recorded each change in the audit log', async () => {
      const rows = await ctx()
        .app.services.database.db.selectFrom('audit_events')
        .select(['event_type', 'actor', 'subject'])
        .where('event_type', 'in', [
          'serverKeysProvisioned',
          'serverKeysRekeyed',
          'trustAnchorAdded',
          'serverCertificateInstalled',
        ])
        .orderBy('id')
        .execute();
      expect(rows.map((row) => `${row.event_type} ${row.subject}`)).toEqual([
        'serverKeysProvisioned server',
        'serverKeysRekeyed server',
        expect.stringMatching(/^trustAnchorAdded CN=Network Root/),
        'serverCertificateInstalled signing',
        'serverCertificateInstalled encryption',
        'serverCertificateInstalled signing',
      ]);
      expect(new Set(rows.map((row) => row.actor))).toEqual(new Set(['admin']));
      const details = await ctx().app.services.database.db.selectFrom('audit_events').select('details').execute();
      expect(JSON.stringify(details)).not.toContain('PRIVATE KEY');
    });
  });

  describe('the server credentials service', () => {
    it('signs XML and JSON with the signing identity and unwraps content keys wrapped for its encryption certificate', async () => {
      const { credentials } = ctx().app.services;
      const { verifyXmlSignature } = await import('../src/crypto/xml-signature.js');
      const { verifyDetachedJws } = await import('../src/crypto/jws.js');
      const { generateContentKey, wrapContentKey } = await import('../src/crypto/design-keys.js');
      const signing = await credentials.signingIdentity();
      const signed = await credentials.signXml('<authorization id="a1"><quantity>3</quantity></authorization>');
      expect(verifyXmlSignature(signed, signing.certificatePem).element.getAttribute('id')).toBe('a1');
      const { body, jws } = await credentials.signJson({ orderId: 'o-1' });
      await expect(verifyDetachedJws(jws, body, signing.certificatePem)).resolves.toBeTruthy();
      const contentKey = generateContentKey();
      const wrapped = await wrapContentKey(contentKey, (await credentials.encryptionIdentity()).certificatePem);
      expect((await credentials.unwrapContentKey(wrapped)).equals(contentKey)).toBe(true);
      expect(await credentials.trustAnchors()).toHaveLength(1);
      const verified = await credentials.verifyWithTrustAnchors(signing.chainPem);
      expect(verified.valid).toBe(true);
    });
  });

  describe('re-keying with certificates installed', () => {
    it('drops both certificates, keeps the trust anchors and sends the wizard back to signCert', async () => {
      const token = await ctx().adminToken();
      // the key opened (and kept) before the re-key is not the one used after it
      const credentials = ctx().app.services.credentials;
      const before = await credentials.key('signing');
      const response = await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: true } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ generation: 3 });
      const view = await certificates(ctx(), token);
      expect(view).toMatchObject({ keyType: 'EC', signing: null, encryption: null });
      expect(view.trustAnchors).toHaveLength(1);
      expect(await step(ctx())).toBe('signCert');
      await expect(ctx().app.services.credentials.signingIdentity()).rejects.toMatchObject({ token: 'provisionNotInitialized' });
      const after = await credentials.key('signing');
      expect(after.privateKeyPem).not.toBe(before.privateKeyPem);
      const publicOf = (privateKeyPem: string) => createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' });
      expect(
        publicOf(after.privateKeyPem).equals(createPublicKey(after.publicKeyPem).export({ type: 'spki', format: 'der' })),
      ).toBe(true);
    });
  });

  describe('POST /ui/admin/provision/development-ca', () => {
    it('is refused with 403 while DEVELOPMENT_CA is off, saying how to enable it', async () => {
      const description = expectToken(
        await ctx().call('POST', '/ui/admin/provision/development-ca', { token: await ctx().adminToken() }),
        403,
        'actionNotAllowed',
      ).errorDescription;
      expect(description).toMatch(/DEVELOPMENT_CA=true/);
      expect(await ctx().app.services.database.db.selectFrom('development_ca').selectAll().execute()).toEqual([]);
    });
  });

  describe('the key-encryption key', () => {
    const secondInstance = async (keyEncryptionKey: string) => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-second-'));
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', KEY_ENCRYPTION_KEY: keyEncryptionKey });
      return { dataDir, build: () => buildApp(config, { logger: false, database: ctx().app.services.database }) };
    };

    it('lets a second instance with the same KEY_ENCRYPTION_KEY open the keys, without writing a key file', async () => {
      const key = (await fs.readFile(path.join(ctx().config.dataDir, KEY_ENCRYPTION_KEY_FILE), 'utf8')).trim();
      const { dataDir, build } = await secondInstance(key);
      const second = await build();
      try {
        const opened = await second.services.credentials.key('signing');
        expect(opened.privateKeyPem).toMatch(/BEGIN PRIVATE KEY/);
        expect(opened.publicKeyPem).toBe((await ctx().app.services.credentials.key('signing')).publicKeyPem);
        await expect(fs.stat(path.join(dataDir, KEY_ENCRYPTION_KEY_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
      } finally {
        await second.close();
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    });

    it('refuses to start an instance whose key-encryption key differs from the one that sealed the database', async () => {
      const { dataDir, build } = await secondInstance(Buffer.alloc(32, 9).toString('base64'));
      try {
        await expect(build()).rejects.toThrow(/KEY_ENCRYPTION_KEY.*not the one that sealed/);
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    });

    it('refuses to start an instance with a DATA_DIR of its own and no key, leaving no new key file in it', async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-second-'));
      try {
        const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
        await expect(buildApp(config, { logger: false, database: ctx().app.services.database })).rejects.toThrow(
          `there is no key-encryption key in ${path.join(dataDir, KEY_ENCRYPTION_KEY_FILE)} and this database's private keys are sealed under one; ` +
            "every instance sharing a database needs the same KEY_ENCRYPTION_KEY (or a copy of the first one's key file)",
        );
        expect(await fs.readdir(dataDir)).toEqual([]);
        // the first instance's key still opens what it sealed
        expect((await ctx().app.services.credentials.key('signing')).privateKeyPem).toMatch(/BEGIN PRIVATE KEY/);
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    });

    it('removes the key file it made when another instance sealed the database first (both starting at once)', async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-second-'));
      const { settings } = ctx().app.services;
      const logged: string[] = [];
      try {
        // as if the other instance stored its check between this one's look and its own insert
        let looked = false;
        const racing = Object.assign(Object.create(settings) as typeof settings, {
          get: async (key: string) => (looked ? settings.get(key) : ((looked = true), undefined)),
        });
        await expect(
          loadKeyEncryptionKey({ configured: null, dataDir }, racing, {
            info: (message) => logged.push(message),
            warn: (message) => logged.push(message),
          }),
        ).rejects.toThrow(
          `the key-encryption key (${path.join(dataDir, KEY_ENCRYPTION_KEY_FILE)}) is not the one that sealed this database's private keys`,
        );
        expect(await fs.readdir(dataDir)).toEqual([]);
        expect(logged).toEqual([]);
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('documents the multipart form of the upload in the OpenAPI document', async () => {
    const document = (await ctx().call('GET', '/ui/admin/api-spec', { token: await ctx().adminToken() })).json();
    const form = document.paths['/ui/admin/upload/provision'].post.requestBody.content['multipart/form-data'].schema;
    expect(form.properties.certificateType.enum).toEqual(['signing', 'encryption', 'trustAnchor']);
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
  });
});

describeEachDatabase(
  'keys and certificates under concurrent requests',
  (ctx) => {
    const statuses = (responses: { statusCode: number; body: string }[]) =>
      responses.map((response) => `${response.statusCode} ${response.statusCode === 200 ? '' : response.body}`.trim());

    it('answers every concurrent re-key, leaving one consistent pair of keys', async () => {
      const token = await ctx().adminToken();
      expect((await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC' } })).statusCode).toBe(200);
      const rekeys = await Promise.all(
        [1, 2, 3].map(() => ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: true } })),
      );
      expect(statuses(rekeys)).toEqual(['200', '200', '200']);
      const pairs = await ctx().app.services.database.db.selectFrom('server_key_pairs').selectAll().execute();
      expect(pairs).toHaveLength(2);
      // each re-key replaced the keys the one before it made
      expect(new Set(pairs.map((pair) => Number(pair.generation)))).toEqual(new Set([4]));
    });

    it('adds a trust anchor uploaded by concurrent requests once, answering each', async () => {
      const token = await ctx().adminToken();
      const root = await testRoot('Concurrent Root');
      const responses = await Promise.all(
        [1, 2, 3].map(() => upload(ctx(), token, { certificateType: 'trustAnchor', file: pemFile(root.certificatePem) })),
      );
      expect(statuses(responses)).toEqual(['200', '200', '200']);
      expect((await certificates(ctx(), token)).trustAnchors).toHaveLength(1);

      const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
      const certificate = pemFile(await issue(root, signingCSR!));
      const installs = await Promise.all(
        [1, 2, 3].map(() => upload(ctx(), token, { certificateType: 'signing', file: certificate })),
      );
      expect(statuses(installs)).toEqual(['200', '200', '200']);
      expect((await certificates(ctx(), token)).signing).toMatchObject({ subject: expect.stringContaining('signing') });
    });

    it('never leaves a certificate of a key a concurrent re-key replaced', async () => {
      const token = await ctx().adminToken();
      expect((await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: true } })).statusCode).toBe(
        200,
      );
      const root = await testRoot('Race Root');
      expect(
        (await upload(ctx(), token, { certificateType: 'trustAnchor', file: pemFile(root.certificatePem) })).statusCode,
      ).toBe(200);
      const db = ctx().app.services.database.db;
      const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' }).toString('base64');
      const outcomes = new Set<string>();
      for (let round = 0; round < 12; round += 1) {
        const { signingCSR } = await csrs(ctx(), token, '?csr=signing');
        const certificate = pemFile(await issue(root, signingCSR!));
        const [installs, rekey] = await Promise.all([
          Promise.all([1, 2].map(() => upload(ctx(), token, { certificateType: 'signing', file: certificate }))),
          ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC', rekey: true } }),
        ]);
        expect(rekey.statusCode, rekey.body).toBe(200);
        for (const install of installs) {
          if (install.statusCode !== 200) expectToken(install, 420, 'provisionCsrInvalid');
          outcomes.add(String(install.statusCode));
        }
        const key = await db
          .selectFrom('server_key_pairs')
          .selectAll()
          .where('purpose', '=', 'signing')
          .executeTakeFirstOrThrow();
        const installed = await db
          .selectFrom('server_certificates')
          .selectAll()
          .where('purpose', '=', 'signing')
          .executeTakeFirst();
        // a certificate installed after the re-key would be of the key it replaced
        if (installed) {
          expect(spki(new X509Certificate(installed.certificate_pem).publicKey)).toBe(spki(createPublicKey(key.public_key_pem)));
        }
      }
      expect(outcomes.size).toBeGreaterThan(0);
    });

    it('answers concurrent development CA requests with the same CA and certificates', async () => {
      const token = await ctx().adminToken();
      const responses = await Promise.all([1, 2].map(() => ctx().call('POST', '/ui/admin/provision/development-ca', { token })));
      expect(statuses(responses)).toEqual(['200', '200']);
      const view = await certificates(ctx(), token);
      expect(view.trustAnchors.filter((anchor) => anchor.development)).toHaveLength(1);
      expect(view.signing?.development).toBe(true);
      expect(view.encryption?.development).toBe(true);
    });
  },
  { DEVELOPMENT_CA: 'true' },
);
