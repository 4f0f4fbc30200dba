import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM, type DecipherGCM, type KeyObject } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { decodeProtectedHeader } from 'jose';
import { decryptCompact, encryptCompact } from './compact-jwe.js';
import { describeCertificate, parseCertificate } from './certificates.js';
import { CryptoError } from './crypto-errors.js';
import { certificateThumbprint } from './jws.js';
import { importPrivateKey, keyTypeOf, type KeyType } from './key-pairs.js';

/**
 * Design-file encryption (the 3MF Secure Content pattern): each private file is encrypted with
 * its own random AES-256-GCM content key, and that key is wrapped for the encryption certificate
 * of every machine allowed to open the file.
 *
 * Encrypted content format (buffer and stream alike):
 *
 *     "MFDK" (4 bytes) | version 0x01 (1 byte) | IV (12 bytes) | ciphertext | GCM tag (16 bytes)
 *
 * The 17-byte header is authenticated as additional data, so version and IV cannot be swapped.
 * Streaming decryption necessarily emits plaintext before the tag at the end has been checked:
 * treat the output as untrusted until the stream finishes without error (write to a temporary
 * file and rename it into place only then).
 */
export const CONTENT_KEY_BYTES = 32;
const MAGIC = Buffer.from('MFDK', 'ascii');
const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const CONTENT_HEADER_BYTES = MAGIC.length + 1 + IV_BYTES;
/** Bytes the format adds to the plaintext. */
export const CONTENT_OVERHEAD_BYTES = CONTENT_HEADER_BYTES + TAG_BYTES;

export function generateContentKey(): Buffer {
  return randomBytes(CONTENT_KEY_BYTES);
}

export function encryptContent(plaintext: Buffer, contentKey: Buffer): Buffer {
  const { header, cipher } = startEncryption(contentKey);
  return Buffer.concat([header, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Decrypts {@link encryptContent} output; `decryptionFailed` on a wrong key or any changed byte. */
export function decryptContent(encrypted: Buffer, contentKey: Buffer): Buffer {
  if (encrypted.length < CONTENT_OVERHEAD_BYTES) throw new CryptoError('malformed', 'Encrypted content is truncated');
  const decipher = startDecryption(encrypted.subarray(0, CONTENT_HEADER_BYTES), contentKey);
  decipher.setAuthTag(encrypted.subarray(encrypted.length - TAG_BYTES));
  const body = encrypted.subarray(CONTENT_HEADER_BYTES, encrypted.length - TAG_BYTES);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch (cause) {
    throw new CryptoError('decryptionFailed', 'Content does not decrypt: wrong key or tampered', { cause });
  }
}

/** A Transform that writes the header, then encrypts chunk by chunk, then appends the tag. */
export function createContentEncryptStream(contentKey: Buffer): Transform {
  const { header, cipher } = startEncryption(contentKey);
  let headerSent = false;
  const sendHeader = (stream: Transform): void => {
    if (!headerSent) stream.push(header);
    headerSent = true;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      sendHeader(this);
      callback(null, cipher.update(chunk));
    },
    flush(callback: TransformCallback) {
      sendHeader(this);
      this.push(cipher.final());
      callback(null, cipher.getAuthTag());
    },
  });
}

/**
 * The counterpart of {@link createContentEncryptStream}: reads the header, decrypts while holding
 * back the last 16 bytes, and at the end checks them as the tag. Errors with `malformed` or
 * `decryptionFailed`; see the module note on trusting streamed output.
 */
export function createContentDecryptStream(contentKey: Buffer): Transform {
  let header = Buffer.alloc(0);
  let decipher: DecipherGCM | undefined;
  let pending = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        let data = chunk;
        if (!decipher) {
          header = Buffer.concat([header, data]);
          if (header.length < CONTENT_HEADER_BYTES) return callback();
          data = header.subarray(CONTENT_HEADER_BYTES);
          decipher = startDecryption(header.subarray(0, CONTENT_HEADER_BYTES), contentKey);
        }
        pending = Buffer.concat([pending, data]);
        if (pending.length <= TAG_BYTES) return callback();
        const ready = pending.subarray(0, pending.length - TAG_BYTES);
        pending = Buffer.from(pending.subarray(pending.length - TAG_BYTES));
        callback(null, decipher.update(ready));
      } catch (error) {
        callback(error instanceof Error ? error : new Error(String(error)));
      }
    },
    flush(callback: TransformCallback) {
      if (!decipher || pending.length !== TAG_BYTES) {
        return callback(new CryptoError('malformed', 'Encrypted content is truncated'));
      }
      decipher.setAuthTag(pending);
      try {
        callback(null, decipher.final());
      } catch (cause) {
        callback(new CryptoError('decryptionFailed', 'Content does not decrypt: wrong key or tampered', { cause }));
      }
    },
  });
}

function startEncryption(contentKey: Buffer): { header: Buffer; cipher: CipherGCM } {
  assertContentKey(contentKey);
  const iv = randomBytes(IV_BYTES);
  const header = Buffer.concat([MAGIC, Buffer.from([FORMAT_VERSION]), iv]);
  const cipher = createCipheriv('aes-256-gcm', contentKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  return { header, cipher };
}

function startDecryption(header: Buffer, contentKey: Buffer): DecipherGCM {
  assertContentKey(contentKey);
  if (!header.subarray(0, MAGIC.length).equals(MAGIC) || header[MAGIC.length] !== FORMAT_VERSION) {
    throw new CryptoError('malformed', 'Not encrypted content of format MFDK version 1');
  }
  const decipher = createDecipheriv('aes-256-gcm', contentKey, header.subarray(MAGIC.length + 1), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(header);
  return decipher;
}

function assertContentKey(contentKey: Buffer): void {
  if (contentKey.length !== CONTENT_KEY_BYTES) {
    throw new CryptoError('invalidInput', `A content key is ${CONTENT_KEY_BYTES} bytes`);
  }
}

export type KeyWrapAlgorithm = 'RSA-OAEP-256' | 'ECDH-ES+A256KW';
const WRAP_ALGORITHM: Record<KeyType, KeyWrapAlgorithm> = { RSA: 'RSA-OAEP-256', EC: 'ECDH-ES+A256KW' };
const WRAP_ENCRYPTION = 'A256GCM';
const REQUIRED_USAGE: Record<KeyType, 'keyEncipherment' | 'keyAgreement'> = {
  RSA: 'keyEncipherment',
  EC: 'keyAgreement',
};

export interface WrappedKeyHeader {
  alg: KeyWrapAlgorithm;
  enc: typeof WRAP_ENCRYPTION;
  /** `x5t#S256` of the recipient certificate: which machine key opens it. */
  recipientThumbprint: string | undefined;
  /** The ephemeral P-256 public key (JWK) for ECDH-ES; absent for RSA. */
  ephemeralPublicKey: Record<string, unknown> | undefined;
}

/**
 * Wraps a content key for a machine's encryption certificate as a compact JWE (`enc: A256GCM`,
 * payload = the 32-byte key): RSA-OAEP-256 (SHA-256, MGF1-SHA256) for RSA, ECDH-ES+A256KW
 * (ephemeral P-256 key, Concat KDF, AES-256 key wrap; RFC 7518) for EC. The JWE header names the
 * algorithm, the ephemeral key and the recipient certificate's thumbprint. A certificate whose key
 * usage does not allow it (keyEncipherment for RSA, keyAgreement for EC) is `unsupportedKey`.
 */
export async function wrapContentKey(contentKey: Buffer, recipientCertificatePem: string): Promise<string> {
  assertContentKey(contentKey);
  return encryptForCertificate(contentKey, recipientCertificatePem);
}

/**
 * Encrypts any bytes for a certificate's key as a compact JWE, exactly as {@link wrapContentKey}
 * wraps a content key (the FSS payloads use it: docs/peer-network.md#the-fss-calls).
 */
export async function encryptForCertificate(plaintext: Uint8Array, recipientCertificatePem: string): Promise<string> {
  const certificate = parseCertificate(recipientCertificatePem);
  const publicKey = certificate.node.publicKey;
  const keyType = keyTypeOf(publicKey);
  const usages = describeCertificate(certificate).keyUsage;
  if (usages.length > 0 && !usages.includes(REQUIRED_USAGE[keyType])) {
    throw new CryptoError('unsupportedKey', `The certificate does not allow ${REQUIRED_USAGE[keyType]}`);
  }
  return encryptCompact(plaintext, publicKey, WRAP_ALGORITHM[keyType], {
    'x5t#S256': certificateThumbprint(recipientCertificatePem),
  });
}

/** Unwraps with the machine's private key (PEM or imported); `decryptionFailed` for any other key or tampering. */
export async function unwrapContentKey(wrappedKey: string, privateKey: string | KeyObject): Promise<Buffer> {
  const plaintext = await decryptWithKey(wrappedKey, privateKey);
  if (plaintext.length !== CONTENT_KEY_BYTES) throw new CryptoError('malformed', 'The wrapped key is not a content key');
  return plaintext;
}

/** Opens a compact JWE of {@link encryptForCertificate} with the private key; `decryptionFailed` for any other key or tampering. */
export async function decryptWithKey(jwe: string, privateKeyPem: string | KeyObject): Promise<Buffer> {
  const privateKey = importPrivateKey(privateKeyPem);
  const expected = WRAP_ALGORITHM[keyTypeOf(privateKey)];
  const header = describeWrappedKey(jwe);
  if (header.alg !== expected) {
    throw new CryptoError('unsupportedAlgorithm', `Key wrapped with ${header.alg}; this key unwraps ${expected}`);
  }
  try {
    return decryptCompact(jwe, privateKey, expected);
  } catch (cause) {
    throw new CryptoError('decryptionFailed', 'The content key does not unwrap with this key', { cause });
  }
}

/** Reads the JWE header of a wrapped key; refuses algorithms outside the allow-list. */
export function describeWrappedKey(wrappedKey: string): WrappedKeyHeader {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    if (wrappedKey.split('.').length !== 5) throw new Error('not a compact JWE');
    header = decodeProtectedHeader(wrappedKey);
  } catch (cause) {
    throw new CryptoError('malformed', 'Not a wrapped content key (compact JWE)', { cause });
  }
  const alg = header.alg;
  if ((alg !== 'RSA-OAEP-256' && alg !== 'ECDH-ES+A256KW') || header.enc !== WRAP_ENCRYPTION) {
    throw new CryptoError('unsupportedAlgorithm', `Key wrapping ${String(alg)}/${String(header.enc)} is not allowed`);
  }
  const thumbprint = header['x5t#S256'];
  return {
    alg,
    enc: WRAP_ENCRYPTION,
    recipientThumbprint: typeof thumbprint === 'string' ? thumbprint : undefined,
    ephemeralPublicKey: header.epk ? { ...header.epk } : undefined,
  };
}
