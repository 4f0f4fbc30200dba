import { createHmac, createPrivateKey, sign as nodeSign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCsr } from './csr.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa } from './development-ca.js';
import { certificateThumbprint, signDetachedJws, signJsonDetached, verifyDetachedJws } from './jws.js';
import { generateKeyPair, type KeyPairPem, type KeyType } from './key-pairs.js';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

describe('detached JWS', () => {
  const keys: Partial<Record<KeyType, KeyPairPem & { certificatePem: string }>> = {};
  let other: KeyPairPem;

  function signer(keyType: KeyType): KeyPairPem & { certificatePem: string } {
    const found = keys[keyType];
    if (!found) throw new Error('keys missing');
    return found;
  }

  beforeAll(async () => {
    const ca = await createDevelopmentRootCa({ keyType: 'EC' });
    const [rsa, ec, stranger] = await Promise.all([generateKeyPair('RSA'), generateKeyPair('EC'), generateKeyPair('EC')]);
    for (const pair of [rsa, ec]) {
      const csr = await createCsr({ siteName: 'Acme', service: 'manage', purpose: 'signing', privateKeyPem: pair.privateKeyPem });
      keys[pair.keyType] = { ...pair, certificatePem: await signCsrWithDevelopmentCa(ca, csr) };
    }
    other = stranger;
  });

  for (const [keyType, alg] of [
    ['RSA', 'RS256'],
    ['EC', 'ES256'],
  ] as const) {
    it(`signs with ${alg} for ${keyType} keys and verifies against the certificate or the public key`, async () => {
      const { privateKeyPem, publicKeyPem, certificatePem } = signer(keyType);
      const { body, jws } = await signJsonDetached({ orderId: 'A1', quantity: 5 }, privateKeyPem, { certificatePem });
      expect(body).toBe('{"orderId":"A1","quantity":5}');
      expect(jws).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);

      const verified = await verifyDetachedJws(jws, body, certificatePem);
      expect(verified.protectedHeader).toEqual({ alg, 'x5t#S256': certificateThumbprint(certificatePem) });
      expect(new TextDecoder().decode(verified.payload)).toBe(body);
      await expect(verifyDetachedJws(jws, Buffer.from(body), publicKeyPem)).resolves.toMatchObject({ protectedHeader: { alg } });
    });

    it(`refuses a tampered payload (${keyType})`, async () => {
      const { privateKeyPem, certificatePem } = signer(keyType);
      const jws = await signDetachedJws('{"quantity":5}', privateKeyPem);
      await expect(verifyDetachedJws(jws, '{"quantity":50}', certificatePem)).rejects.toMatchObject({ reason: 'badSignature' });
      await expect(verifyDetachedJws(jws, '{"quantity":5} ', certificatePem)).rejects.toMatchObject({ reason: 'badSignature' });
    });
  }

  it('refuses a signature by another key', async () => {
    const jws = await signDetachedJws('{}', other.privateKeyPem);
    await expect(verifyDetachedJws(jws, '{}', signer('EC').certificatePem)).rejects.toMatchObject({ reason: 'badSignature' });
  });

  it('refuses alg none', async () => {
    const forged = `${b64url('{"alg":"none"}')}..`;
    await expect(verifyDetachedJws(forged, '{}', signer('RSA').certificatePem)).rejects.toMatchObject({ reason: 'malformed' });
    const withSignature = `${b64url('{"alg":"none"}')}..${b64url('x')}`;
    await expect(verifyDetachedJws(withSignature, '{}', signer('RSA').certificatePem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
  });

  it('refuses HS256 keyed with the public key (key confusion)', async () => {
    const { publicKeyPem, certificatePem } = signer('RSA');
    const header = b64url('{"alg":"HS256"}');
    const payload = '{"quantity":500}';
    const mac = createHmac('sha256', publicKeyPem)
      .update(`${header}.${b64url(payload)}`)
      .digest('base64url');
    await expect(verifyDetachedJws(`${header}..${mac}`, payload, certificatePem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
    await expect(verifyDetachedJws(`${header}..${mac}`, payload, publicKeyPem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
  });

  it('refuses an algorithm that does not fit the trusted key (ES256 against an RSA certificate)', async () => {
    const jws = await signDetachedJws('{}', signer('EC').privateKeyPem);
    await expect(verifyDetachedJws(jws, '{}', signer('RSA').certificatePem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
  });

  it('refuses an attached JWS, unencoded payloads and garbage', async () => {
    const { privateKeyPem, certificatePem } = signer('EC');
    const [header, , signature] = (await signDetachedJws('{}', privateKeyPem)).split('.');
    await expect(verifyDetachedJws(`${header}.${b64url('{}')}.${signature}`, '{}', certificatePem)).rejects.toMatchObject({
      reason: 'malformed',
    });
    const b64Header = b64url('{"alg":"ES256","b64":false,"crit":["b64"]}');
    const unencoded = nodeSign('sha256', Buffer.from(`${b64Header}.{}`), {
      key: createPrivateKey(privateKeyPem),
      dsaEncoding: 'ieee-p1363',
    }).toString('base64url');
    await expect(verifyDetachedJws(`${b64Header}..${unencoded}`, '{}', certificatePem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
    await expect(verifyDetachedJws('not a jws', '{}', certificatePem)).rejects.toMatchObject({ reason: 'malformed' });
  });
});
