import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { CryptoError } from './crypto-errors.js';

/**
 * Streaming authenticated encryption in records (the STREAM construction of Hoang, Reyhanitabar,
 * Rogaway and Vizár, as in age and Tink's streaming AEAD): the plaintext is cut into records of
 * `RECORD_BYTES`, each sealed with AES-256-GCM under its own nonce
 * `prefix (7) | record counter (4, big-endian) | last flag (1)`. The header is authenticated as
 * additional data of every record.
 *
 *     "MFSR" (4) | version 0x01 (1) | record size (4, big-endian) | nonce prefix (7)
 *     record 0: ciphertext (record size) | tag (16)
 *     …
 *     last record: ciphertext (0 … record size) | tag (16)
 *
 * Decryption releases a record's plaintext only after that record's tag verified, so no byte
 * that was changed at rest is ever passed on; records cannot be reordered (counter), and a
 * stream cut at a record boundary or extended fails (last flag). Memory stays at about one
 * record whatever the file size.
 */
export const RECORD_KEY_BYTES = 32;
export const RECORD_BYTES = 64 * 1024;
const MAGIC = Buffer.from('MFSR', 'ascii');
const FORMAT_VERSION = 1;
const PREFIX_BYTES = 7;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 1 + 4 + PREFIX_BYTES;
const MAX_RECORDS = 2 ** 32;

/** Bytes the format adds to `plaintextBytes` of plaintext sealed in records of `recordBytes`. */
export function recordOverheadBytes(plaintextBytes: number, recordBytes = RECORD_BYTES): number {
  return HEADER_BYTES + Math.max(1, Math.ceil(plaintextBytes / recordBytes)) * TAG_BYTES;
}

export function generateRecordKey(): Buffer {
  return randomBytes(RECORD_KEY_BYTES);
}

function nonce(prefix: Buffer, counter: number, last: boolean): Buffer {
  if (counter >= MAX_RECORDS) throw new CryptoError('invalidInput', 'The content has too many records');
  const value = Buffer.alloc(12);
  prefix.copy(value, 0);
  value.writeUInt32BE(counter, PREFIX_BYTES);
  value[11] = last ? 1 : 0;
  return value;
}

function assertKey(key: Buffer): void {
  if (key.length !== RECORD_KEY_BYTES) throw new CryptoError('invalidInput', `A content key is ${RECORD_KEY_BYTES} bytes`);
}

/** Collects chunks without copying each one; `take(n)` copies out exactly n bytes. */
class ChunkQueue {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  take(bytes: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= bytes) {
      // the head chunk holds it all: a view, no copy
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
      this.length -= bytes;
      return first.subarray(0, bytes);
    }
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const head = this.chunks[0]!;
      const used = Math.min(head.length, bytes - filled);
      head.copy(out, filled, 0, used);
      filled += used;
      if (used === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(used);
    }
    this.length -= bytes;
    return out;
  }
}

/** Encrypts a stream into the record format under `key` (a fresh random key per file). */
export function createRecordEncryptStream(key: Buffer, recordBytes = RECORD_BYTES): Transform {
  assertKey(key);
  if (!Number.isInteger(recordBytes) || recordBytes < 16 || recordBytes > 2 ** 24) {
    throw new CryptoError('invalidInput', 'The record size is out of range');
  }
  const prefix = randomBytes(PREFIX_BYTES);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header[MAGIC.length] = FORMAT_VERSION;
  header.writeUInt32BE(recordBytes, MAGIC.length + 1);
  prefix.copy(header, MAGIC.length + 5);
  const pending = new ChunkQueue();
  let counter = 0;
  let headerSent = false;

  /** A record's ciphertext and tag, pushed as they come (no copy into one buffer). */
  const seal = (stream: Transform, plaintext: Buffer, last: boolean): void => {
    const cipher = createCipheriv('aes-256-gcm', key, nonce(prefix, counter, last), { authTagLength: TAG_BYTES });
    cipher.setAAD(header);
    counter += 1;
    const ciphertext = cipher.update(plaintext);
    const rest = cipher.final(); // empty for GCM
    if (ciphertext.length > 0) stream.push(ciphertext);
    if (rest.length > 0) stream.push(rest);
    stream.push(cipher.getAuthTag());
  };
  const sendHeader = (stream: Transform) => {
    if (!headerSent) stream.push(header);
    headerSent = true;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        sendHeader(this);
        pending.push(chunk);
        // a full record goes out only once more follows it: the last record must carry the flag
        while (pending.length > recordBytes) seal(this, pending.take(recordBytes), false);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        sendHeader(this);
        seal(this, pending.take(pending.length), true);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

/**
 * Decrypts the record format. Each record's plaintext is pushed only after its tag verified;
 * errors with `malformed` (not this format, cut short) or `decryptionFailed` (wrong key, any
 * changed, reordered, dropped or added byte). A consumer that must not act on a partial file
 * still waits for the end without error (the last record proves the file is complete).
 */
export function createRecordDecryptStream(key: Buffer): Transform {
  assertKey(key);
  const pending = new ChunkQueue();
  let header: Buffer | undefined;
  let prefix: Buffer = Buffer.alloc(0);
  let recordBytes = 0;
  let counter = 0;

  const open = (sealed: Buffer, last: boolean): Buffer => {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce(prefix, counter, last), { authTagLength: TAG_BYTES });
    decipher.setAAD(header!);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    counter += 1;
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch (cause) {
      throw new CryptoError('decryptionFailed', `Record ${counter - 1} does not decrypt: wrong key or tampered`, { cause });
    }
  };
  const readHeader = (): boolean => {
    if (header) return true;
    if (pending.length < HEADER_BYTES) return false;
    const candidate = pending.take(HEADER_BYTES);
    if (!candidate.subarray(0, MAGIC.length).equals(MAGIC) || candidate[MAGIC.length] !== FORMAT_VERSION) {
      throw new CryptoError('malformed', 'Not encrypted content of format MFSR version 1');
    }
    recordBytes = candidate.readUInt32BE(MAGIC.length + 1);
    if (recordBytes < 16 || recordBytes > 2 ** 24) throw new CryptoError('malformed', 'The record size is out of range');
    prefix = candidate.subarray(MAGIC.length + 5);
    header = candidate;
    return true;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        pending.push(chunk);
        if (!readHeader()) return callback();
        const sealedBytes = recordBytes + TAG_BYTES;
        // a full record is the last one only when nothing follows it: keep it until more arrives
        while (pending.length > sealedBytes) this.push(open(pending.take(sealedBytes), false));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (!readHeader() || pending.length < TAG_BYTES) {
          throw new CryptoError('malformed', 'Encrypted content is truncated');
        }
        callback(null, open(pending.take(pending.length), true));
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}
