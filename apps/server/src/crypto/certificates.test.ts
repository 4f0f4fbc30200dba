import { beforeAll, describe, expect, it } from 'vitest';
import {
  certificateMatchesPublicKey,
  describeCertificate,
  parseCertificateBundle,
  validityAt,
  verifyCertificateChain,
} from './certificates.js';
import { pathOf, runTool, withTempFiles } from './crypto-test-helpers.js';
import { createCsr } from './csr.js';
import {
  createDevelopmentIntermediateCa,
  createDevelopmentRootCa,
  signCsrWithDevelopmentCa,
  type DevelopmentCa,
} from './development-ca.js';
import { generateKeyPair, type KeyPairPem } from './key-pairs.js';

const NOW = new Date();
const YEAR_MS = 365 * 86_400_000;

describe('certificates', () => {
  let root: DevelopmentCa;
  let otherRoot: DevelopmentCa;
  let sameNameRoot: DevelopmentCa;
  let intermediate: DevelopmentCa;
  let rsaKeys: KeyPairPem;
  let ecKeys: KeyPairPem;
  let leafUnderIntermediate: string;
  let leafUnderRoot: string;

  async function issue(ca: DevelopmentCa, keys: KeyPairPem, options: { notBefore?: Date; notAfter?: Date } = {}) {
    const csr = await createCsr({ siteName: 'Acme', service: 'manage', purpose: 'signing', privateKeyPem: keys.privateKeyPem });
    return signCsrWithDevelopmentCa(ca, csr, options);
  }

  beforeAll(async () => {
    [root, otherRoot, sameNameRoot, rsaKeys, ecKeys] = await Promise.all([
      createDevelopmentRootCa({ keyType: 'RSA', commonName: 'Network root' }),
      createDevelopmentRootCa({ keyType: 'EC', commonName: 'Other network root' }),
      createDevelopmentRootCa({ keyType: 'EC', commonName: 'Network root' }),
      generateKeyPair('RSA'),
      generateKeyPair('EC'),
    ]);
    intermediate = await createDevelopmentIntermediateCa(root, { keyType: 'EC', commonName: 'Network issuing CA' });
    leafUnderIntermediate = await issue(intermediate, rsaKeys);
    leafUnderRoot = await issue(root, ecKeys);
  });

  describe('describeCertificate', () => {
    it('describes subject, issuer, serial, dates, usages, fingerprint and key type', () => {
      const description = describeCertificate(leafUnderIntermediate);
      const fingerprint = withTempFiles({ 'leaf.pem': leafUnderIntermediate }, (paths) =>
        runTool('openssl', ['x509', '-in', pathOf(paths, 'leaf.pem'), '-noout', '-fingerprint', '-sha256']).stdout.trim(),
      );
      const serial = withTempFiles({ 'leaf.pem': leafUnderIntermediate }, (paths) =>
        runTool('openssl', ['x509', '-in', pathOf(paths, 'leaf.pem'), '-noout', '-serial']).stdout.trim(),
      );
      expect(description).toMatchObject({
        subject: 'CN=Acme manage signing, O=Acme, OU=manage',
        issuer: 'CN=Network issuing CA, O=Manifold development network',
        keyUsage: ['digitalSignature', 'nonRepudiation'],
        keyType: 'RSA',
        isCa: false,
      });
      expect(`sha256 Fingerprint=${description.fingerprintSha256}`).toBe(fingerprint);
      expect(`serial=${description.serialNumber}`).toBe(serial);
      expect(description.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      expect(description.notAfter.getTime() - description.notBefore.getTime()).toBe(730 * 86_400_000);
    });

    it('splits a bundle in order and refuses text without a certificate', () => {
      const bundle = `${leafUnderIntermediate}\n${intermediate.certificatePem}\n${root.certificatePem}`;
      expect(parseCertificateBundle(bundle).map((certificate) => describeCertificate(certificate).subject)).toEqual([
        'CN=Acme manage signing, O=Acme, OU=manage',
        'CN=Network issuing CA, O=Manifold development network',
        'CN=Network root, O=Manifold development network',
      ]);
      expect(() => parseCertificateBundle('hello')).toThrow(expect.objectContaining({ reason: 'malformed' }));
      expect(() => parseCertificateBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toThrow(
        expect.objectContaining({ reason: 'malformed' }),
      );
    });
  });

  describe('certificateMatchesPublicKey', () => {
    it('matches the certified key given as public key, private key or certificate', () => {
      expect(certificateMatchesPublicKey(leafUnderRoot, ecKeys.publicKeyPem)).toBe(true);
      expect(certificateMatchesPublicKey(leafUnderRoot, ecKeys.privateKeyPem)).toBe(true);
      expect(certificateMatchesPublicKey(leafUnderRoot, leafUnderRoot)).toBe(true);
    });

    it('does not match another key', () => {
      expect(certificateMatchesPublicKey(leafUnderRoot, rsaKeys.publicKeyPem)).toBe(false);
      expect(certificateMatchesPublicKey(leafUnderIntermediate, ecKeys.publicKeyPem)).toBe(false);
    });
  });

  describe('validityAt', () => {
    it('tells valid, expired and not yet valid apart', () => {
      const { notBefore, notAfter } = describeCertificate(leafUnderRoot);
      expect(validityAt(leafUnderRoot, new Date())).toBe('valid');
      expect(validityAt(leafUnderRoot, new Date(notAfter.getTime() + 1000))).toBe('expired');
      expect(validityAt(leafUnderRoot, new Date(notBefore.getTime() - 1000))).toBe('notYetValid');
      expect(validityAt(leafUnderRoot, notAfter)).toBe('valid');
    });
  });

  describe('verifyCertificateChain', () => {
    it('verifies leaf → intermediate → root and returns the path', () => {
      const result = verifyCertificateChain({
        leaf: leafUnderIntermediate,
        intermediates: [intermediate.certificatePem],
        trustAnchors: [otherRoot.certificatePem, root.certificatePem],
        expectedPublicKeyPem: rsaKeys.publicKeyPem,
      });
      expect(result.valid).toBe(true);
      if (!result.valid) return;
      expect(result.path.map((entry) => entry.subject)).toEqual([
        'CN=Acme manage signing, O=Acme, OU=manage',
        'CN=Network issuing CA, O=Manifold development network',
        'CN=Network root, O=Manifold development network',
      ]);
    });

    it('accepts the chain as one uploaded bundle', () => {
      const result = verifyCertificateChain({
        leaf: `${leafUnderIntermediate}${intermediate.certificatePem}`,
        trustAnchors: [root.certificatePem],
      });
      expect(result).toMatchObject({ valid: true });
    });

    it('agrees with openssl verify on the same chain', () => {
      const result = withTempFiles(
        { 'root.pem': root.certificatePem, 'int.pem': intermediate.certificatePem, 'leaf.pem': leafUnderIntermediate },
        (paths) =>
          runTool('openssl', [
            'verify',
            '-CAfile',
            pathOf(paths, 'root.pem'),
            '-untrusted',
            pathOf(paths, 'int.pem'),
            pathOf(paths, 'leaf.pem'),
          ]),
      );
      expect(result.status).toBe(0);
    });

    it('refuses a certificate from another chain as untrustedRoot', () => {
      expect(verifyCertificateChain({ leaf: leafUnderRoot, trustAnchors: [otherRoot.certificatePem] })).toEqual({
        valid: false,
        failure: 'untrustedRoot',
        description:
          'Issuer "CN=Network root, O=Manifold development network" is not a trusted anchor nor a supplied intermediate',
        subject: 'CN=Acme manage signing, O=Acme, OU=manage',
      });
    });

    it('refuses a chain whose intermediate is missing as untrustedRoot', () => {
      expect(verifyCertificateChain({ leaf: leafUnderIntermediate, trustAnchors: [root.certificatePem] })).toMatchObject({
        valid: false,
        failure: 'untrustedRoot',
      });
    });

    it('refuses a self-signed root offered as an intermediate', () => {
      expect(
        verifyCertificateChain({
          leaf: leafUnderRoot,
          intermediates: [root.certificatePem],
          trustAnchors: [otherRoot.certificatePem],
        }),
      ).toMatchObject({ valid: false, failure: 'untrustedRoot', subject: 'CN=Network root, O=Manifold development network' });
    });

    it('refuses a signature made by another key under the same issuer name as badSignature', () => {
      expect(verifyCertificateChain({ leaf: leafUnderRoot, trustAnchors: [sameNameRoot.certificatePem] })).toMatchObject({
        valid: false,
        failure: 'badSignature',
        subject: 'CN=Acme manage signing, O=Acme, OU=manage',
      });
    });

    it('refuses an expired certificate', async () => {
      const expired = await issue(root, ecKeys, {
        notBefore: new Date(NOW.getTime() - 3 * YEAR_MS),
        notAfter: new Date(NOW.getTime() - YEAR_MS),
      });
      const result = verifyCertificateChain({ leaf: expired, trustAnchors: [root.certificatePem] });
      expect(result).toMatchObject({ valid: false, failure: 'expired', subject: 'CN=Acme manage signing, O=Acme, OU=manage' });
      expect(!result.valid && result.description).toMatch(/^"CN=Acme manage signing, O=Acme, OU=manage" expired on \d{4}-/);
    });

    it('refuses a certificate that is not valid yet, and checks validity at the given time', async () => {
      const future = await issue(root, ecKeys, { notBefore: new Date(NOW.getTime() + YEAR_MS) });
      expect(verifyCertificateChain({ leaf: future, trustAnchors: [root.certificatePem] })).toMatchObject({
        valid: false,
        failure: 'notYetValid',
      });
      expect(
        verifyCertificateChain({ leaf: future, trustAnchors: [root.certificatePem], at: new Date(NOW.getTime() + 2 * YEAR_MS) }),
      ).toMatchObject({ valid: true });
    });

    it('refuses an expired intermediate', async () => {
      const oldIntermediate = await createDevelopmentIntermediateCa(root, {
        keyType: 'EC',
        notBefore: new Date(NOW.getTime() - 3 * YEAR_MS),
        notAfter: new Date(NOW.getTime() - YEAR_MS),
      });
      const leaf = await issue(oldIntermediate, ecKeys);
      expect(
        verifyCertificateChain({ leaf, intermediates: [oldIntermediate.certificatePem], trustAnchors: [root.certificatePem] }),
      ).toMatchObject({
        valid: false,
        failure: 'expired',
        subject: 'CN=Manifold Development Intermediate CA (not for production), O=Manifold development network',
      });
    });

    it('refuses a key mismatch', () => {
      expect(
        verifyCertificateChain({
          leaf: leafUnderRoot,
          trustAnchors: [root.certificatePem],
          expectedPublicKeyPem: rsaKeys.publicKeyPem,
        }),
      ).toEqual({
        valid: false,
        failure: 'keyMismatch',
        description: 'The certificate does not certify the expected public key',
        subject: 'CN=Acme manage signing, O=Acme, OU=manage',
      });
    });

    it('refuses a certificate issued by an end-entity certificate as notACa', async () => {
      const fakeCa: DevelopmentCa = { keyType: 'EC', certificatePem: leafUnderRoot, privateKeyPem: ecKeys.privateKeyPem };
      const forged = await issue(fakeCa, rsaKeys);
      const result = verifyCertificateChain({
        leaf: forged,
        intermediates: [leafUnderRoot],
        trustAnchors: [root.certificatePem],
      });
      expect(result).toMatchObject({ valid: false, failure: 'notACa', subject: 'CN=Acme manage signing, O=Acme, OU=manage' });
      expect(!result.valid && result.description).toContain('basicConstraints cA is not set');
    });

    it('refuses an intermediate beyond the path length of its issuer as notACa', async () => {
      const below = await createDevelopmentIntermediateCa(intermediate, { keyType: 'EC', commonName: 'Too deep' });
      const leaf = await issue(below, ecKeys);
      const result = verifyCertificateChain({
        leaf,
        intermediates: [below.certificatePem, intermediate.certificatePem],
        trustAnchors: [root.certificatePem],
      });
      expect(result).toMatchObject({
        valid: false,
        failure: 'notACa',
        subject: 'CN=Network issuing CA, O=Manifold development network',
      });
    });

    it('refuses malformed input', () => {
      expect(verifyCertificateChain({ leaf: 'nope', trustAnchors: [root.certificatePem] })).toMatchObject({
        valid: false,
        failure: 'malformed',
      });
      expect(verifyCertificateChain({ leaf: leafUnderRoot, trustAnchors: ['nope'] })).toMatchObject({
        valid: false,
        failure: 'malformed',
      });
    });

    it('refuses a certificate signed with SHA-1 as badSignature', () => {
      const weak = withTempFiles(
        {},
        () =>
          runTool('openssl', [
            'req',
            '-x509',
            '-sha1',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-keyout',
            '/dev/null',
            '-subj',
            '/CN=weak',
            '-days',
            '30',
          ]).stdout,
      );
      expect(weak).toMatch(/BEGIN CERTIFICATE/);
      const result = verifyCertificateChain({ leaf: weak, trustAnchors: [weak] });
      expect(result).toMatchObject({ valid: false, failure: 'badSignature', subject: 'CN=weak' });
      expect(!result.valid && result.description).toContain('SHA-1');
    });
  });
});
