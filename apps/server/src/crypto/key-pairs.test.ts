import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CryptoError } from './crypto-errors.js';
import {
  generateKeyPair,
  generateServiceKeyPairs,
  importPrivateKey,
  importPublicKey,
  keyTypeOf,
  openPrivateKey,
  publicKeyPemFromPrivate,
  sealPrivateKey,
  type KeyPairPem,
} from './key-pairs.js';

describe('key pairs', () => {
  let rsa: KeyPairPem;
  let ec: KeyPairPem;

  beforeAll(async () => {
    [rsa, ec] = await Promise.all([generateKeyPair('RSA'), generateKeyPair('EC')]);
  });

  it('generates RSA 3072 keys as PKCS#8 and SPKI PEM', () => {
    expect(rsa.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(rsa.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const key = importPrivateKey(rsa.privateKeyPem);
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(3072);
    expect(keyTypeOf(key)).toBe('RSA');
  });

  it('generates EC P-256 keys', () => {
    const key = importPrivateKey(ec.privateKeyPem);
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(keyTypeOf(importPublicKey(ec.publicKeyPem))).toBe('EC');
  });

  it('derives the public key PEM from the private key', () => {
    expect(publicKeyPemFromPrivate(rsa.privateKeyPem)).toBe(rsa.publicKeyPem);
    expect(publicKeyPemFromPrivate(ec.privateKeyPem)).toBe(ec.publicKeyPem);
  });

  it('generates two distinct pairs for signing and encryption', async () => {
    const pairs = await generateServiceKeyPairs('EC');
    expect(pairs.signing.keyType).toBe('EC');
    expect(pairs.encryption.keyType).toBe('EC');
    expect(pairs.signing.publicKeyPem).not.toBe(pairs.encryption.publicKeyPem);
  });

  it('refuses keys outside RSA and P-256', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => importPrivateKey(ed)).toThrow(expect.objectContaining({ reason: 'unsupportedKey' }));
    expect(() => importPrivateKey('not a key')).toThrow(expect.objectContaining({ reason: 'malformed' }));
  });
});

describe('sealPrivateKey / openPrivateKey', () => {
  const masterKey = randomBytes(32);
  const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';

  it('round-trips with the same master key in the v1 compact format', () => {
    const sealed = sealPrivateKey(pem, masterKey);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(openPrivateKey(sealed, masterKey)).toBe(pem);
  });

  it('uses a fresh IV each time', () => {
    expect(sealPrivateKey(pem, masterKey)).not.toBe(sealPrivateKey(pem, masterKey));
  });

  it('refuses a wrong master key', () => {
    const sealed = sealPrivateKey(pem, masterKey);
    expect(() => openPrivateKey(sealed, randomBytes(32))).toThrow(CryptoError);
    expect(() => openPrivateKey(sealed, randomBytes(32))).toThrow(expect.objectContaining({ reason: 'decryptionFailed' }));
  });

  it('refuses a tampered ciphertext, IV or tag', () => {
    const [version, iv, tag, body] = sealPrivateKey(pem, masterKey).split('.') as [string, string, string, string];
    const flip = (text: string): string => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [version, iv, tag, flip(body)],
      [version, flip(iv), tag, body],
      [version, iv, flip(tag), body],
    ]) {
      expect(() => openPrivateKey(tampered.join('.'), masterKey)).toThrow(
        expect.objectContaining({ reason: 'decryptionFailed' }),
      );
    }
  });

  it('refuses an unknown version or a malformed blob', () => {
    const sealed = sealPrivateKey(pem, masterKey);
    expect(() => openPrivateKey(sealed.replace(/^v1/, 'v2'), masterKey)).toThrow(
      expect.objectContaining({ reason: 'malformed' }),
    );
    expect(() => openPrivateKey('v1.abc', masterKey)).toThrow(expect.objectContaining({ reason: 'malformed' }));
  });

  it('refuses a master key that is not 32 bytes', () => {
    expect(() => sealPrivateKey(pem, randomBytes(16))).toThrow(expect.objectContaining({ reason: 'invalidInput' }));
  });
});
