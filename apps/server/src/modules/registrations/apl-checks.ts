import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import type { TAplRegistrationRequest } from '@manifold/contract';
import { parseCertificateBundle, validityAt, type ParsedCertificate } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { signDetachedJws, verifyDetachedJws } from '../../crypto/jws.js';
import { AppError } from '../../lib/app-error.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { SignedApl } from '../../peers/registration.client.js';
import type { ServerCredentials, ServerIdentity } from '../provision/server-credentials.service.js';

/**
 * A certificate chain a peer sent in an `apl` (PEM bundle, leaf first) verified against our
 * trust anchors; answers the leaf PEM. `registrationExchangeInvalidApl` when it holds no PEM,
 * `certificateExchangeChainVerifyFail` when it does not verify.
 */
export async function checkPeerChain(credentials: ServerCredentials, pem: string, field: string): Promise<string> {
  let chain: string[];
  try {
    chain = parseCertificateBundle(pem).map((certificate) => certificate.pem);
  } catch {
    throw new AppError('registrationExchangeInvalidApl', { field, description: `${field} holds no PEM certificate` });
  }
  const verification = await credentials.verifyWithTrustAnchors(chain);
  if (!verification.valid) {
    throw new AppError('certificateExchangeChainVerifyFail', {
      field,
      description: `${field} does not verify (${verification.failure}): ${verification.description}`,
    });
  }
  return chain[0]!;
}

/** How far the time a peer signed a message at may be from now, either way. */
export const SIGNED_WINDOW_MS = 5 * 60 * 1000;

/**
 * The time a peer says it signed a message at (`timestamp` of a notice or message, `dateCreated`
 * of a registration): within five minutes of now, either way — an older message (captured and
 * replayed once its nonce is forgotten) or one from the future is `registrationExchangeInvalidApl`
 * naming `field`.
 */
export function checkSignedRecently(signedAt: string, field: string, now = Date.now()): void {
  const at = Date.parse(signedAt);
  if (!Number.isFinite(at) || Math.abs(now - at) > SIGNED_WINDOW_MS) {
    throw new AppError('registrationExchangeInvalidApl', { field, description: 'The message is not from the last five minutes' });
  }
}

/**
 * The leaf of a registered signing chain (leaf first) — a peer's (`registrant` `peer`) or a
 * Protect's (`Protect`) — every certificate of it valid at `at`: a key whose certificate (or a CA
 * certificate above it) has expired or is not valid yet signs nothing here —
 * `registrationSignatureInvalid` on `signature`, the description naming the registrant, which
 * certificate and when.
 */
export function validSigningCertificate(
  chain: readonly ParsedCertificate[],
  registrant: 'peer' | 'Protect',
  at = new Date(),
): string {
  for (const certificate of chain) {
    const validity = validityAt(certificate, at);
    if (validity === 'valid') continue;
    const { subject, notAfter, notBefore } = certificate.x509;
    const which = `The signing certificate registered for this ${registrant} ("${subject}")`;
    throw new AppError('registrationSignatureInvalid', {
      field: 'signature',
      description:
        validity === 'expired'
          ? `${which} expired on ${notAfter.toISOString()}`
          : `${which} is not valid before ${notBefore.toISOString()}`,
    });
  }
  return chain[0]!.pem;
}

/** The detached JWS `signature` over the canonical JSON of `apl`, by this certificate's key; `registrationSignatureInvalid`. */
export async function verifyAplSignature(input: TAplRegistrationRequest, certificatePem: string): Promise<void> {
  if (!input.signature) {
    throw new AppError('registrationSignatureInvalid', { field: 'signature', description: 'The message carries no signature' });
  }
  try {
    await verifyDetachedJws(input.signature, canonicalJson(input.apl), certificatePem);
  } catch (error) {
    if (!isCryptoError(error)) throw error;
    throw new AppError('registrationSignatureInvalid', {
      field: 'signature',
      description: `The signature does not verify: ${error.message}`,
    });
  }
}

/** The `apl` of a message parsed with its schema; the first problem is `registrationExchangeInvalidApl` naming its field. */
export function parseApl<T extends z.ZodType>(schema: T, apl: unknown, at = 'apl'): z.infer<T> {
  const parsed = schema.safeParse(apl);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AppError('registrationExchangeInvalidApl', { field: [at, ...issue.path].join('.'), description: issue.message });
}

/** `{aplType, apl, signature}`: a detached JWS over the canonical JSON of `apl` by our signing key. */
export async function signApl(credentials: ServerCredentials, aplType: string, apl: object): Promise<SignedApl> {
  const { privateKey, certificatePem } = await credentials.signingIdentity();
  return signAplWith({ privateKeyPem: privateKey, certificatePem }, aplType, apl);
}

/** {@link signApl} with a signing identity already opened (several messages signed in a row). */
export async function signAplWith(
  identity: { privateKeyPem: ServerIdentity['privateKeyPem'] | KeyObject; certificatePem: string },
  aplType: string,
  apl: object,
): Promise<SignedApl> {
  const signature = await signDetachedJws(canonicalJson(apl), identity.privateKeyPem, {
    certificatePem: identity.certificatePem,
  });
  return { aplType, apl, signature };
}
