import { createHash, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCsr } from './csr.js';
import {
  CONTENT_OVERHEAD_BYTES,
  createContentDecryptStream,
  createContentEncryptStream,
  decryptContent,
  describeWrappedKey,
  encryptContent,
  generateContentKey,
  unwrapContentKey,
  wrapContentKey,
} from './design-keys.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa } from './development-ca.js';
import { certificateThumbprint } from './jws.js';
import { generateKeyPair, importPrivateKey, type KeyPairPem, type KeyType } from './key-pairs.js';

async function runThrough(input: Buffer, transform: NodeJS.ReadWriteStream, chunkSize = 65_536): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const source = Readable.from(
    (function* () {
      for (let offset = 0; offset < input.length; offset += chunkSize) yield input.subarray(offset, offset + chunkSize);
    })(),
  );
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  await pipeline(source, transform, sink);
  return Buffer.concat(chunks);
}

describe('content encryption', () => {
  const key = generateContentKey();

  it('generates 256-bit random keys', () => {
    expect(key.length).toBe(32);
    expect(generateContentKey().equals(key)).toBe(false);
  });

  it('round-trips a buffer in the MFDK v1 format', () => {
    const plaintext = Buffer.from('solid: cube\n');
    const encrypted = encryptContent(plaintext, key);
    expect(encrypted.length).toBe(plaintext.length + CONTENT_OVERHEAD_BYTES);
    expect(encrypted.subarray(0, 5).toString('latin1')).toBe('MFDK\u0001');
    expect(decryptContent(encrypted, key).equals(plaintext)).toBe(true);
    expect(decryptContent(encryptContent(Buffer.alloc(0), key), key).length).toBe(0);
  });

  it('refuses a wrong key, a flipped byte anywhere and truncation', () => {
    const encrypted = encryptContent(randomBytes(1000), key);
    expect(() => decryptContent(encrypted, generateContentKey())).toThrow(
      expect.objectContaining({ reason: 'decryptionFailed' }),
    );
    for (const position of [5, 20, 500, encrypted.length - 1]) {
      const flipped = Buffer.from(encrypted);
      flipped[position] = (flipped[position] ?? 0) ^ 0x01;
      expect(() => decryptContent(flipped, key)).toThrow(expect.objectContaining({ reason: 'decryptionFailed' }));
    }
    const wrongVersion = Buffer.from(encrypted);
    wrongVersion[4] = 2;
    expect(() => decryptContent(wrongVersion, key)).toThrow(expect.objectContaining({ reason: 'malformed' }));
    expect(() => decryptContent(encrypted.subarray(0, 20), key)).toThrow(expect.objectContaining({ reason: 'malformed' }));
    expect(() => encryptContent(Buffer.from('x'), randomBytes(16))).toThrow(expect.objectContaining({ reason: 'invalidInput' }));
  });

  describe('streams', () => {
    const plaintext = randomBytes(5 * 1024 * 1024 + 123);
    let encrypted: Buffer;

    beforeAll(async () => {
      encrypted = await runThrough(plaintext, createContentEncryptStream(key));
    });

    it('encrypts a few MB chunk by chunk into the buffer format', () => {
      expect(encrypted.length).toBe(plaintext.length + CONTENT_OVERHEAD_BYTES);
      expect(decryptContent(encrypted, key).equals(plaintext)).toBe(true);
    });

    it('decrypts a stream, whatever the chunk boundaries', async () => {
      for (const chunkSize of [65_536, 1_000_003]) {
        const decrypted = await runThrough(encrypted, createContentDecryptStream(key), chunkSize);
        expect(createHash('sha256').update(decrypted).digest('hex')).toBe(createHash('sha256').update(plaintext).digest('hex'));
      }
      const part = plaintext.subarray(0, 100_000);
      const partEncrypted = encryptContent(part, key);
      for (const chunkSize of [7, 17]) {
        expect((await runThrough(partEncrypted, createContentDecryptStream(key), chunkSize)).equals(part)).toBe(true);
      }
      const small = encryptContent(Buffer.from('abc'), key);
      expect((await runThrough(small, createContentDecryptStream(key), 1)).toString()).toBe('abc');
      const empty = await runThrough(Buffer.alloc(0), createContentEncryptStream(key));
      expect(empty.length).toBe(CONTENT_OVERHEAD_BYTES);
      expect((await runThrough(empty, createContentDecryptStream(key))).length).toBe(0);
    });

    it('fails on a flipped byte in the body or the tag', async () => {
      for (const position of [1_000_000, encrypted.length - 3]) {
        const flipped = Buffer.from(encrypted);
        flipped[position] = (flipped[position] ?? 0) ^ 0x80;
        await expect(runThrough(flipped, createContentDecryptStream(key))).rejects.toMatchObject({ reason: 'decryptionFailed' });
      }
    });

    it('fails with the wrong key and on truncated input', async () => {
      await expect(runThrough(encrypted, createContentDecryptStream(generateContentKey()))).rejects.toMatchObject({
        reason: 'decryptionFailed',
      });
      await expect(
        runThrough(encrypted.subarray(0, encrypted.length - 1), createContentDecryptStream(key)),
      ).rejects.toMatchObject({
        reason: 'decryptionFailed',
      });
      await expect(runThrough(encrypted.subarray(0, 10), createContentDecryptStream(key))).rejects.toMatchObject({
        reason: 'malformed',
      });
    });
  });
});

/** The base64url coordinate with its last bit flipped: the point leaves the curve. */
function offCurve(coordinate: string): string {
  const bytes = Buffer.from(coordinate, 'base64url');
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  return bytes.toString('base64url');
}

describe('content key wrapping', () => {
  const machines: Partial<Record<KeyType, KeyPairPem & { certificatePem: string }>> = {};
  let otherEc: KeyPairPem;
  let otherRsa: KeyPairPem;
  let signingCertificate: string;

  function machine(keyType: KeyType): KeyPairPem & { certificatePem: string } {
    const found = machines[keyType];
    if (!found) throw new Error('machine missing');
    return found;
  }

  beforeAll(async () => {
    const ca = await createDevelopmentRootCa({ keyType: 'EC' });
    const [rsa, ec, strangerEc, strangerRsa] = await Promise.all([
      generateKeyPair('RSA'),
      generateKeyPair('EC'),
      generateKeyPair('EC'),
      generateKeyPair('RSA'),
    ]);
    for (const pair of [rsa, ec]) {
      const csr = await createCsr({
        siteName: 'Printer 7',
        service: 'enforce',
        purpose: 'encryption',
        privateKeyPem: pair.privateKeyPem,
      });
      machines[pair.keyType] = { ...pair, certificatePem: await signCsrWithDevelopmentCa(ca, csr) };
    }
    const signingCsr = await createCsr({
      siteName: 'Printer 7',
      service: 'enforce',
      purpose: 'signing',
      privateKeyPem: ec.privateKeyPem,
    });
    signingCertificate = await signCsrWithDevelopmentCa(ca, signingCsr);
    otherEc = strangerEc;
    otherRsa = strangerRsa;
  });

  for (const [keyType, alg] of [
    ['RSA', 'RSA-OAEP-256'],
    ['EC', 'ECDH-ES+A256KW'],
  ] as const) {
    it(`wraps with ${alg} for an ${keyType} machine and unwraps with its private key`, async () => {
      const { certificatePem, privateKeyPem } = machine(keyType);
      const contentKey = generateContentKey();
      const wrapped = await wrapContentKey(contentKey, certificatePem);
      expect(wrapped.split('.')).toHaveLength(5);
      const header = describeWrappedKey(wrapped);
      expect(header).toMatchObject({ alg, enc: 'A256GCM', recipientThumbprint: certificateThumbprint(certificatePem) });
      if (keyType === 'EC') expect(header.ephemeralPublicKey).toMatchObject({ kty: 'EC', crv: 'P-256' });
      else expect(header.ephemeralPublicKey).toBeUndefined();
      expect((await unwrapContentKey(wrapped, privateKeyPem)).equals(contentKey)).toBe(true);
    });

    it(`refuses to unwrap with another ${keyType} machine key`, async () => {
      const wrapped = await wrapContentKey(generateContentKey(), machine(keyType).certificatePem);
      const other = keyType === 'EC' ? otherEc : otherRsa;
      await expect(unwrapContentKey(wrapped, other.privateKeyPem)).rejects.toMatchObject({ reason: 'decryptionFailed' });
    });
  }

  for (const keyType of ['RSA', 'EC'] as const) {
    it(`wraps ${keyType} keys as jose opens them, and opens what jose wraps`, async () => {
      const { certificatePem, privateKeyPem } = machine(keyType);
      const contentKey = generateContentKey();
      const privateKey = importPrivateKey(privateKeyPem);
      const alg = keyType === 'EC' ? 'ECDH-ES+A256KW' : 'RSA-OAEP-256';
      const ours = await wrapContentKey(contentKey, certificatePem);
      const opened = await compactDecrypt(ours, privateKey, {
        keyManagementAlgorithms: [alg],
        contentEncryptionAlgorithms: ['A256GCM'],
      });
      expect(Buffer.from(opened.plaintext).equals(contentKey)).toBe(true);
      expect(opened.protectedHeader).toMatchObject({ alg, enc: 'A256GCM', 'x5t#S256': certificateThumbprint(certificatePem) });
      const theirs = await new CompactEncrypt(contentKey)
        .setProtectedHeader({ alg, enc: 'A256GCM', 'x5t#S256': certificateThumbprint(certificatePem) })
        .encrypt(createPublicKey(certificatePem));
      expect((await unwrapContentKey(theirs, privateKey)).equals(contentKey)).toBe(true);
      expect((await unwrapContentKey(theirs, privateKeyPem)).equals(contentKey)).toBe(true);
      if (keyType === 'EC') {
        // a sender that names the parties: they enter the key derivation
        const named = await new CompactEncrypt(contentKey)
          .setProtectedHeader({ alg, enc: 'A256GCM' })
          .setKeyManagementParameters({ apu: Buffer.from('Protect'), apv: Buffer.from('Manage') })
          .encrypt(createPublicKey(certificatePem));
        expect((await unwrapContentKey(named, privateKey)).equals(contentKey)).toBe(true);
      }
    });
  }

  it('refuses a wrap whose protected header was changed, or that asks for compression or another curve', async () => {
    const { certificatePem, privateKeyPem } = machine('EC');
    const wrapped = await wrapContentKey(generateContentKey(), certificatePem);
    const [header, ...rest] = wrapped.split('.');
    const members = JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const withHeader = (changed: Record<string, unknown>) =>
      [Buffer.from(JSON.stringify(changed)).toString('base64url'), ...rest].join('.');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    for (const changed of [
      { ...members, kid: 'added' },
      { ...members, zip: 'DEF' },
      { ...members, epk: { kty: 'EC', crv: p384.crv, x: p384.x, y: p384.y } },
      { ...members, epk: { ...(members.epk as object), x: 'AAAA' } },
      // a point of the right length off the curve (an invalid-curve attack's probe)
      { ...members, epk: { ...(members.epk as object), y: offCurve((members.epk as { y: string }).y) } },
    ]) {
      await expect(unwrapContentKey(withHeader(changed), privateKeyPem)).rejects.toMatchObject({ reason: 'decryptionFailed' });
    }
    expect((await unwrapContentKey(withHeader(members), privateKeyPem)).length).toBe(32);
  });

  it('uses a fresh ephemeral key and IV per wrap', async () => {
    const contentKey = generateContentKey();
    const [first, second] = await Promise.all([
      wrapContentKey(contentKey, machine('EC').certificatePem),
      wrapContentKey(contentKey, machine('EC').certificatePem),
    ]);
    expect(first).not.toBe(second);
    expect(describeWrappedKey(first).ephemeralPublicKey).not.toEqual(describeWrappedKey(second).ephemeralPublicKey);
  });

  it('refuses a key of the other type, a tampered wrap, and a certificate not meant for encryption', async () => {
    const wrapped = await wrapContentKey(generateContentKey(), machine('EC').certificatePem);
    await expect(unwrapContentKey(wrapped, machine('RSA').privateKeyPem)).rejects.toMatchObject({
      reason: 'unsupportedAlgorithm',
    });
    const parts = wrapped.split('.');
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    await expect(unwrapContentKey(parts.join('.'), machine('EC').privateKeyPem)).rejects.toMatchObject({
      reason: 'decryptionFailed',
    });
    await expect(unwrapContentKey('a.b.c', machine('EC').privateKeyPem)).rejects.toMatchObject({ reason: 'malformed' });
    await expect(wrapContentKey(generateContentKey(), signingCertificate)).rejects.toMatchObject({ reason: 'unsupportedKey' });
  });

  it('refuses key management algorithms outside the allow-list', () => {
    const header = Buffer.from('{"alg":"RSA1_5","enc":"A256GCM"}').toString('base64url');
    expect(() => describeWrappedKey(`${header}.a.b.c.d`)).toThrow(expect.objectContaining({ reason: 'unsupportedAlgorithm' }));
    const dir = Buffer.from('{"alg":"dir","enc":"A256GCM"}').toString('base64url');
    expect(() => describeWrappedKey(`${dir}..b.c.d`)).toThrow(expect.objectContaining({ reason: 'unsupportedAlgorithm' }));
  });
});
