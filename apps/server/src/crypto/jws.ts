import { createHash, type KeyObject, verify as nodeVerify } from 'node:crypto';
import { CompactSign, decodeProtectedHeader, type CompactJWSHeaderParameters } from 'jose';
import { memoized } from '../lib/memo.js';
import { parseCertificate } from './certificates.js';
import { CryptoError } from './crypto-errors.js';
import { importPrivateKey, importPublicKey, keyTypeOf, type KeyType } from './key-pairs.js';

/**
 * Detached JWS (RFC 7515 Appendix F): a compact JWS whose payload part is left empty
 * (`<header>..<signature>`); the payload travels separately (e.g. as the HTTP body) and the
 * verifier supplies the exact bytes it received. RS256 for RSA keys, ES256 for EC keys, and a
 * verifier accepts only the one algorithm that fits the key it already trusts, so `none`, HS256
 * (key confusion) and anything else is refused. Unencoded payloads (`b64: false`) and `crit` are
 * refused too.
 */
export type JwsAlgorithm = 'RS256' | 'ES256';

const ALGORITHM: Record<KeyType, JwsAlgorithm> = { RSA: 'RS256', EC: 'ES256' };

export interface DetachedJwsOptions {
  /** Adds `x5t#S256` (SHA-256 thumbprint of this certificate) so the receiver can pick the key. */
  certificatePem?: string;
}

/** Signs with a private key in PEM, or one already imported (`importPrivateKey`) for several signatures in a row. */
export async function signDetachedJws(
  payload: Uint8Array | string,
  privateKeyPem: string | KeyObject,
  options: DetachedJwsOptions = {},
): Promise<string> {
  const privateKey = importPrivateKey(privateKeyPem);
  const header: CompactJWSHeaderParameters = { alg: ALGORITHM[keyTypeOf(privateKey)] };
  if (options.certificatePem !== undefined) header['x5t#S256'] = certificateThumbprint(options.certificatePem);
  const jws = await new CompactSign(toBytes(payload)).setProtectedHeader(header).sign(privateKey);
  const [protectedHeader, , signature] = jws.split('.');
  return `${protectedHeader}..${signature}`;
}

/** Serialises `value` as JSON and signs those bytes; send `body` as is next to `jws`. */
export async function signJsonDetached(
  value: unknown,
  privateKeyPem: string | KeyObject,
  options: DetachedJwsOptions = {},
): Promise<{ body: string; jws: string }> {
  const body = JSON.stringify(value);
  return { body, jws: await signDetachedJws(body, privateKeyPem, options) };
}

export interface VerifiedJws {
  protectedHeader: CompactJWSHeaderParameters;
  payload: Uint8Array;
}

/**
 * Verifies a detached JWS over `payload` with the trusted certificate or SPKI public key only (a
 * PEM, or the key already imported when one key checks many signatures).
 * Throws `malformed`, `unsupportedAlgorithm` or `badSignature`.
 */
export async function verifyDetachedJws(
  jws: string,
  payload: Uint8Array | string,
  trustedKeyPem: string | KeyObject,
): Promise<VerifiedJws> {
  const parts = jws.split('.');
  const [protectedPart, payloadPart, signaturePart] = parts;
  if (parts.length !== 3 || !protectedPart || payloadPart !== '' || !signaturePart) {
    throw new CryptoError('malformed', 'Not a detached compact JWS (<header>..<signature>)');
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch (cause) {
    throw new CryptoError('malformed', 'The JWS header cannot be decoded', { cause });
  }
  if ('b64' in header || 'crit' in header) {
    throw new CryptoError('unsupportedAlgorithm', 'Unencoded payloads and critical header parameters are not accepted');
  }
  const publicKey = typeof trustedKeyPem === 'string' ? trustedPublicKey(trustedKeyPem) : trustedKeyPem;
  const algorithm = ALGORITHM[keyTypeOf(publicKey)];
  if (header.alg !== algorithm) {
    throw new CryptoError('unsupportedAlgorithm', `JWS algorithm ${String(header.alg)} is not allowed; expected ${algorithm}`);
  }
  if (!/^[A-Za-z0-9_-]+$/.test(signaturePart)) throw new CryptoError('malformed', 'The JWS signature is not base64url');
  const bytes = toBytes(payload);
  // the JWS signing input (RFC 7515 §5.2), checked by OpenSSL on the libuv thread pool: many
  // signatures checked at once use the other cores, and the event loop goes on meanwhile
  const input = Buffer.from(`${protectedPart}.${Buffer.from(bytes).toString('base64url')}`, 'latin1');
  const key = algorithm === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' as const } : publicKey;
  const valid = await new Promise<boolean>((resolve) =>
    nodeVerify('sha256', input, key, Buffer.from(signaturePart, 'base64url'), (error, result) => resolve(!error && result)),
  );
  if (!valid) throw new CryptoError('badSignature', 'The JWS signature does not verify with the trusted key');
  return { protectedHeader: header as CompactJWSHeaderParameters, payload: bytes };
}

/** Trusted public keys imported once: a peer's certificate verifies every message it sends. */
const trustedPublicKey = memoized(importPublicKey);

/** Base64url SHA-256 of the DER certificate, as JOSE's `x5t#S256`. */
export const certificateThumbprint = memoized((certificatePem: string): string =>
  createHash('sha256').update(parseCertificate(certificatePem).node.raw).digest('base64url'),
);

function toBytes(payload: Uint8Array | string): Uint8Array {
  return typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
}
