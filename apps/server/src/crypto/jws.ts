import { createHash } from 'node:crypto';
import { CompactSign, compactVerify, decodeProtectedHeader, errors, type CompactJWSHeaderParameters } from 'jose';
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

export async function signDetachedJws(
  payload: Uint8Array | string,
  privateKeyPem: string,
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
  privateKeyPem: string,
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
 * Verifies a detached JWS over `payload` with the trusted certificate or SPKI public key only.
 * Throws `malformed`, `unsupportedAlgorithm` or `badSignature`.
 */
export async function verifyDetachedJws(jws: string, payload: Uint8Array | string, trustedKeyPem: string): Promise<VerifiedJws> {
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
  const publicKey = importPublicKey(trustedKeyPem);
  const algorithm = ALGORITHM[keyTypeOf(publicKey)];
  if (header.alg !== algorithm) {
    throw new CryptoError('unsupportedAlgorithm', `JWS algorithm ${String(header.alg)} is not allowed; expected ${algorithm}`);
  }
  const bytes = toBytes(payload);
  const attached = `${protectedPart}.${Buffer.from(bytes).toString('base64url')}.${signaturePart}`;
  try {
    const result = await compactVerify(attached, publicKey, { algorithms: [algorithm] });
    return { protectedHeader: result.protectedHeader, payload: result.payload };
  } catch (error) {
    throw mapJoseError(error);
  }
}

/** Base64url SHA-256 of the DER certificate, as JOSE's `x5t#S256`. */
export function certificateThumbprint(certificatePem: string): string {
  return createHash('sha256').update(parseCertificate(certificatePem).node.raw).digest('base64url');
}

function mapJoseError(error: unknown): CryptoError {
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new CryptoError('badSignature', 'The JWS signature does not verify with the trusted key', { cause: error });
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new CryptoError('unsupportedAlgorithm', 'The JWS algorithm is not allowed', { cause: error });
  }
  return new CryptoError('malformed', 'The JWS is malformed', { cause: error });
}

function toBytes(payload: Uint8Array | string): Uint8Array {
  return typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
}
