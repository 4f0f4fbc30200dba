import { beforeAll, describe, expect, it } from 'vitest';
import { describeCertificate, verifyCertificateChain } from './certificates.js';
import { pathOf, runTool, withTempFiles } from './crypto-test-helpers.js';
import { createCsr } from './csr.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa, type DevelopmentCa } from './development-ca.js';
import { generateKeyPair, type KeyPairPem } from './key-pairs.js';

function opensslVerify(caPem: string, certificatePem: string): { status: number | null; output: string } {
  return withTempFiles({ 'ca.pem': caPem, 'leaf.pem': certificatePem }, (paths) => {
    const result = runTool('openssl', ['verify', '-CAfile', pathOf(paths, 'ca.pem'), pathOf(paths, 'leaf.pem')]);
    return { status: result.status, output: result.stdout + result.stderr };
  });
}

describe('development CA', () => {
  let rsaCa: DevelopmentCa;
  let ecCa: DevelopmentCa;
  let rsaKeys: KeyPairPem;
  let ecKeys: KeyPairPem;

  beforeAll(async () => {
    [rsaCa, ecCa, rsaKeys, ecKeys] = await Promise.all([
      createDevelopmentRootCa({ keyType: 'RSA' }),
      createDevelopmentRootCa({ keyType: 'EC', commonName: 'Demo EC root' }),
      generateKeyPair('RSA'),
      generateKeyPair('EC'),
    ]);
  });

  it('creates self-signed root CAs that openssl accepts as CAs', () => {
    for (const ca of [rsaCa, ecCa]) {
      expect(opensslVerify(ca.certificatePem, ca.certificatePem).status).toBe(0);
      const description = describeCertificate(ca.certificatePem);
      expect(description.isCa).toBe(true);
      expect(description.keyUsage).toEqual(['keyCertSign', 'cRLSign']);
      expect(description.subject).toBe(description.issuer);
    }
    expect(describeCertificate(rsaCa.certificatePem).subject).toBe(
      'CN=Manifold Development CA (not for production), O=Manifold development network',
    );
    expect(describeCertificate(ecCa.certificatePem).keyType).toBe('EC');
  });

  const matrix = [
    { ca: 'RSA', key: 'EC', purpose: 'signing', usage: ['digitalSignature', 'nonRepudiation'] },
    { ca: 'RSA', key: 'RSA', purpose: 'encryption', usage: ['keyEncipherment', 'dataEncipherment'] },
    { ca: 'EC', key: 'RSA', purpose: 'signing', usage: ['digitalSignature', 'nonRepudiation'] },
    { ca: 'EC', key: 'EC', purpose: 'encryption', usage: ['keyAgreement'] },
  ] as const;

  for (const { ca: caType, key, purpose, usage } of matrix) {
    it(`signs an ${key} ${purpose} CSR with the ${caType} CA, and openssl verify -CAfile accepts it`, async () => {
      const ca = caType === 'RSA' ? rsaCa : ecCa;
      const keys = key === 'RSA' ? rsaKeys : ecKeys;
      const csr = await createCsr({ siteName: 'Acme', service: 'manage', purpose, privateKeyPem: keys.privateKeyPem });
      const before = Date.now();
      const certificatePem = await signCsrWithDevelopmentCa(ca, csr);

      const verified = opensslVerify(ca.certificatePem, certificatePem);
      expect(verified.output.trim()).toMatch(/: OK$/);
      expect(verified.status).toBe(0);

      const description = describeCertificate(certificatePem);
      expect(description.subject).toBe(`CN=Acme manage ${purpose}, O=Acme, OU=manage`);
      expect(description.issuer).toBe(describeCertificate(ca.certificatePem).subject);
      expect(description.keyUsage).toEqual(usage);
      expect(description.keyType).toBe(key);
      expect(description.isCa).toBe(false);
      expect(description.serialNumber).toMatch(/^[1-7][0-9A-F]{31}$/);
      expect(Math.abs(description.notBefore.getTime() - (before - 5 * 60_000))).toBeLessThan(5_000);
      expect(description.notAfter.getTime() - description.notBefore.getTime()).toBe(730 * 86_400_000);

      expect(
        verifyCertificateChain({
          leaf: certificatePem,
          trustAnchors: [ca.certificatePem],
          expectedPublicKeyPem: keys.publicKeyPem,
        }),
      ).toMatchObject({ valid: true });
    });
  }

  it('gives every certificate a different serial number', async () => {
    const csr = await createCsr({ siteName: 'Acme', service: 'trace', purpose: 'signing', privateKeyPem: ecKeys.privateKeyPem });
    const serials = new Set(
      await Promise.all([1, 2, 3].map(async () => describeCertificate(await signCsrWithDevelopmentCa(ecCa, csr)).serialNumber)),
    );
    expect(serials.size).toBe(3);
  });

  it('honours explicit validity dates', async () => {
    const csr = await createCsr({ siteName: 'Acme', service: 'trace', purpose: 'signing', privateKeyPem: ecKeys.privateKeyPem });
    const notBefore = new Date('2020-01-01T00:00:00Z');
    const notAfter = new Date('2021-01-01T00:00:00Z');
    const description = describeCertificate(await signCsrWithDevelopmentCa(ecCa, csr, { notBefore, notAfter }));
    expect(description.notBefore.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(description.notAfter.toISOString()).toBe('2021-01-01T00:00:00.000Z');
  });

  it('refuses a CSR whose signature does not verify', async () => {
    const csr = await createCsr({ siteName: 'Acme', service: 'manage', purpose: 'signing', privateKeyPem: ecKeys.privateKeyPem });
    const der = Buffer.from(csr.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 3] = (der[der.length - 3] ?? 0) ^ 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(signCsrWithDevelopmentCa(ecCa, tampered)).rejects.toMatchObject({ reason: 'badSignature' });
  });

  it('refuses a CSR without key usage', async () => {
    const csr = withTempFiles(
      { 'key.pem': ecKeys.privateKeyPem },
      (paths) => runTool('openssl', ['req', '-new', '-key', pathOf(paths, 'key.pem'), '-subj', '/CN=bare']).stdout,
    );
    expect(csr).toMatch(/BEGIN CERTIFICATE REQUEST/);
    await expect(signCsrWithDevelopmentCa(ecCa, csr)).rejects.toMatchObject({ reason: 'invalidInput' });
  });
});
