import { randomBytes } from 'node:crypto';
import { Readable, type Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import {
  createRecordDecryptStream,
  createRecordEncryptStream,
  generateRecordKey,
  recordOverheadBytes,
} from './record-encryption.js';

function chunks(data: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += size) out.push(data.subarray(offset, offset + size));
  return out;
}

function through(data: Buffer, stream: Transform, chunkSize = 1000): Promise<Buffer> {
  return buffer(Readable.from(chunks(data, chunkSize)).pipe(stream));
}

/** Decrypts, answering the plaintext pushed before the failure and the error (if any). */
async function decryptCollecting(sealed: Buffer, key: Buffer): Promise<{ plain: Buffer; error: unknown }> {
  const stream = createRecordDecryptStream(key);
  const received: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => received.push(chunk));
  const error = await new Promise<unknown>((resolve) => {
    stream.on('error', resolve);
    stream.on('end', () => resolve(undefined));
    for (const chunk of chunks(sealed, 4096)) stream.write(chunk);
    stream.end();
  });
  return { plain: Buffer.concat(received), error };
}

describe('record encryption', () => {
  const key = generateRecordKey();

  it.each([0, 1, 15, 16, 17, 64, 100, 320, 1000])('round-trips %i bytes in 64-byte records', async (size) => {
    const plain = randomBytes(size);
    const sealed = await through(plain, createRecordEncryptStream(key, 64), 7);
    expect(sealed.length).toBe(size + recordOverheadBytes(size, 64));
    expect(await through(sealed, createRecordDecryptStream(key), 13)).toEqual(plain);
  });

  it('round-trips a multi-record file in the default record size, and the ciphertext differs from the plaintext', async () => {
    const plain = Buffer.alloc(300_000, 'plain text ');
    const sealed = await through(plain, createRecordEncryptStream(key), 50_000);
    expect(sealed.includes(Buffer.from('plain text plain text'))).toBe(false);
    expect(await through(sealed, createRecordDecryptStream(key), 65_000)).toEqual(plain);
  });

  it('refuses a changed byte and passes on nothing of the record that holds it', async () => {
    const plain = randomBytes(640);
    const sealed = await through(plain, createRecordEncryptStream(key, 64));
    // byte 5 of the record 3 ciphertext: header 16, then 80 bytes a record
    const tampered = Buffer.from(sealed);
    tampered[16 + 3 * 80 + 5]! ^= 1;
    const { plain: released, error } = await decryptCollecting(tampered, key);
    expect(error).toMatchObject({ name: 'CryptoError', reason: 'decryptionFailed' });
    expect(released).toEqual(plain.subarray(0, 3 * 64));
  });

  it('refuses a stream cut at a record boundary, records swapped, a wrong key and another format', async () => {
    const plain = randomBytes(256);
    const sealed = await through(plain, createRecordEncryptStream(key, 64));
    const cut = sealed.subarray(0, 16 + 2 * 80);
    expect((await decryptCollecting(cut, key)).error).toMatchObject({ reason: 'decryptionFailed' });
    const swapped = Buffer.concat([
      sealed.subarray(0, 16),
      sealed.subarray(96, 176),
      sealed.subarray(16, 96),
      sealed.subarray(176),
    ]);
    expect((await decryptCollecting(swapped, key)).error).toMatchObject({ reason: 'decryptionFailed' });
    expect((await decryptCollecting(sealed, generateRecordKey())).error).toMatchObject({ reason: 'decryptionFailed' });
    expect((await decryptCollecting(Buffer.from('not encrypted at all'), key)).error).toMatchObject({ reason: 'malformed' });
    expect((await decryptCollecting(sealed.subarray(0, 20), key)).error).toMatchObject({ reason: 'malformed' });
  });
});
