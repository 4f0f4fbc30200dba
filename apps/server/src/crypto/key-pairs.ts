import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPair as generateNodeKeyPair,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { CryptoError } from './crypto-errors.js';

/** The spec's provision key type (§3 "Provision key type"). */
export type KeyType = 'RSA' | 'EC';
/** Each instance owns one key pair per purpose (DOMAIN.md "Trust"). */
export type KeyPurpose = 'signing' | 'encryption';

export interface KeyPairPem {
  keyType: KeyType;
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
  privateKeyPem: string;
  /** SPKI PEM (`-----BEGIN PUBLIC KEY-----`). */
  publicKeyPem: string;
}

export interface ServiceKeyPairs {
  signing: KeyPairPem;
  encryption: KeyPairPem;
}

export const RSA_MODULUS_BITS = 3072;
export const EC_CURVE = 'P-256';
const MIN_ACCEPTED_RSA_BITS = 2048;

/** Generates off the main thread (RSA 3072 takes around a second). */
export function generateKeyPair(keyType: KeyType): Promise<KeyPairPem> {
  const encoding = {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  } as const;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKeyPem: string, privateKeyPem: string): void => {
      if (error) reject(error);
      else resolve({ keyType, privateKeyPem, publicKeyPem });
    };
    if (keyType === 'RSA') generateNodeKeyPair('rsa', { modulusLength: RSA_MODULUS_BITS, ...encoding }, done);
    else generateNodeKeyPair('ec', { namedCurve: EC_CURVE, ...encoding }, done);
  });
}

/** The signing and the encryption key pair of one instance, generated concurrently. */
export async function generateServiceKeyPairs(keyType: KeyType): Promise<ServiceKeyPairs> {
  const [signing, encryption] = await Promise.all([generateKeyPair(keyType), generateKeyPair(keyType)]);
  return { signing, encryption };
}

/** A private key from PKCS#8 PEM; a key already imported is taken as it is (and checked alike). */
export function importPrivateKey(key: string | KeyObject): KeyObject {
  if (typeof key !== 'string') {
    if (key.type !== 'private') throw new CryptoError('malformed', 'Not a private key');
    keyTypeOf(key);
    return key;
  }
  let imported: KeyObject;
  try {
    imported = createPrivateKey({ key, format: 'pem' });
  } catch (cause) {
    throw new CryptoError('malformed', 'Not a PEM private key', { cause });
  }
  keyTypeOf(imported);
  return imported;
}

/** Accepts an SPKI public key, a certificate or a private key in PEM (the public half is taken). */
export function importPublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new CryptoError('malformed', 'Not a PEM public key', { cause });
  }
  keyTypeOf(key);
  return key;
}

/** The key type of a key, refusing anything but RSA ≥ 2048 bits and EC P-256. */
export function keyTypeOf(key: KeyObject): KeyType {
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= MIN_ACCEPTED_RSA_BITS) {
    return 'RSA';
  }
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1') return 'EC';
  throw new CryptoError(
    'unsupportedKey',
    `Unsupported key: ${key.asymmetricKeyType ?? key.type} (only RSA ≥ ${MIN_ACCEPTED_RSA_BITS} bits and EC P-256)`,
  );
}

export function exportPublicKeyPem(key: KeyObject): string {
  return publicHalf(key).export({ type: 'spki', format: 'pem' }).toString();
}

export function publicKeyPemFromPrivate(privateKeyPem: string): string {
  return exportPublicKeyPem(importPrivateKey(privateKeyPem));
}

/** DER SPKI bytes, the canonical form for comparing two public keys. */
export function spkiDer(key: KeyObject): Buffer {
  return publicHalf(key).export({ type: 'spki', format: 'der' });
}

function publicHalf(key: KeyObject): KeyObject {
  return key.type === 'public' ? key : createPublicKey(key);
}

const SEAL_VERSION = 'v1';
const SEAL_IV_BYTES = 12;
const SEAL_TAG_BYTES = 16;
const MASTER_KEY_BYTES = 32;

/**
 * Encrypts a private key for storage at rest with AES-256-GCM under a 32-byte master key.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the version is authenticated (AAD),
 * so a blob cannot be replayed under another format.
 */
export function sealPrivateKey(privateKeyPem: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
  const iv = randomBytes(SEAL_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: SEAL_TAG_BYTES });
  cipher.setAAD(Buffer.from(SEAL_VERSION));
  const ciphertext = Buffer.concat([cipher.update(privateKeyPem, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEAL_VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Opens what {@link sealPrivateKey} produced; throws `decryptionFailed` on a wrong key or tampering. */
export function openPrivateKey(sealed: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
  const parts = sealed.split('.');
  const [version, ivText, tagText, ciphertextText] = parts;
  if (parts.length !== 4 || version !== SEAL_VERSION || !ivText || !tagText || ciphertextText === undefined) {
    throw new CryptoError('malformed', 'Not a sealed private key of format v1');
  }
  const iv = decodeBase64Url(ivText);
  const tag = decodeBase64Url(tagText);
  if (iv.length !== SEAL_IV_BYTES || tag.length !== SEAL_TAG_BYTES) {
    throw new CryptoError('malformed', 'Sealed private key has a wrong IV or tag length');
  }
  const decipher = createDecipheriv('aes-256-gcm', masterKey, iv, { authTagLength: SEAL_TAG_BYTES });
  decipher.setAAD(Buffer.from(version));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(decodeBase64Url(ciphertextText)), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new CryptoError('decryptionFailed', 'Sealed private key does not open: wrong master key or tampered', {
      cause,
    });
  }
}

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) {
    throw new CryptoError('invalidInput', `Master key must be ${MASTER_KEY_BYTES} bytes`);
  }
}

function decodeBase64Url(text: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new CryptoError('malformed', 'Not base64url');
  return Buffer.from(text, 'base64url');
}
