import type { TCertificateInfo } from '@manifold/contract';
import {
  certificateMatchesPublicKey,
  describeCertificate,
  parseCertificateBundle,
  validityAt,
  verifyCertificateChain,
  type CertificateDescription,
  type KeyUsageName,
  type ParsedCertificate,
} from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import type { KeyType } from '../../crypto/key-pairs.js';
import { AppError } from '../../lib/app-error.js';
import type { KeyPurpose } from './credentials.repository.js';

/** MySQL's `text` holds 65,535 bytes; a stored chain stays well inside. */
const MAX_STORED_CHAIN_CHARS = 60_000;

export interface CheckedServerCertificate {
  leaf: CertificateDescription;
  /** Leaf then its intermediates (PEM), as stored and handed to peers; the trust anchor is not included. */
  chainPem: string;
  /** The rest of the verified path: intermediates, then the trust anchor. */
  path: CertificateDescription[];
  trustAnchorFingerprint: string;
}

export interface ServerCertificateInput {
  /** The upload: the certificate, optionally followed by its chain. */
  bundlePem: string;
  purpose: KeyPurpose;
  keyPair: { keyType: KeyType; publicKeyPem: string };
  trustAnchors: string[];
  at?: Date;
}

/** Key usages a certificate of this purpose must allow (when it restricts usage at all). */
export function requiredKeyUsages(purpose: KeyPurpose, keyType: KeyType): KeyUsageName[] {
  if (purpose === 'signing') return ['digitalSignature'];
  return keyType === 'RSA' ? ['keyEncipherment'] : ['keyAgreement'];
}

/**
 * Whether a certificate may be installed for one of the server's key pairs: it must certify that
 * key, be an end-entity certificate with a fitting key usage (`provisionCsrInvalid` otherwise),
 * and chain to a configured trust anchor with every certificate within its validity
 * (`certificateExchangeChainVerifyFail` otherwise, saying what failed).
 */
export function checkServerCertificate(input: ServerCertificateInput): CheckedServerCertificate {
  const bundle = parseBundle(input.bundlePem, 'provisionCsrInvalid');
  const [leaf, ...rest] = bundle as [ParsedCertificate, ...ParsedCertificate[]];
  const leafDescription = describeCertificate(leaf);
  if (!certificateMatchesPublicKey(leaf, input.keyPair.publicKeyPem)) {
    throw new AppError('provisionCsrInvalid', {
      field: 'file',
      description:
        `The certificate "${leafDescription.subject}" does not match this server's ${input.purpose} key: ` +
        `it certifies another public key. Upload the certificate issued for the ${input.purpose} CSR.`,
    });
  }
  if (leafDescription.isCa) {
    throw new AppError('provisionCsrInvalid', {
      field: 'file',
      description: `"${leafDescription.subject}" is a CA certificate; the server's ${input.purpose} certificate must be an end-entity certificate`,
    });
  }
  const missing = requiredKeyUsages(input.purpose, input.keyPair.keyType).filter(
    (usage) => !leafDescription.keyUsage.includes(usage),
  );
  if (leafDescription.keyUsage.length > 0 && missing.length > 0) {
    throw new AppError('provisionCsrInvalid', {
      field: 'file',
      description: `The certificate's key usage (${leafDescription.keyUsage.join(', ')}) lacks ${missing.join(', ')}, needed for ${input.purpose}`,
    });
  }
  if (input.trustAnchors.length === 0) {
    throw new AppError('certificateExchangeChainVerifyFail', {
      field: 'file',
      description: 'No trust anchor is configured: upload the network root certificate first (certificateType trustAnchor)',
    });
  }
  const verification = verifyCertificateChain({
    leaf: leaf.pem,
    intermediates: rest.map((certificate) => certificate.pem),
    trustAnchors: input.trustAnchors,
    ...(input.at ? { at: input.at } : {}),
  });
  if (!verification.valid) {
    throw new AppError('certificateExchangeChainVerifyFail', {
      field: 'file',
      description: `Certificate chain verification failed (${verification.failure}): ${verification.description}`,
    });
  }
  const [, ...path] = verification.path;
  const anchor = path[path.length - 1] as CertificateDescription;
  const intermediates = path
    .slice(0, -1)
    .map((step) => rest.find((certificate) => certificate.node.fingerprint256 === step.fingerprintSha256))
    .filter((certificate): certificate is ParsedCertificate => certificate !== undefined);
  const chainPem = [leaf, ...intermediates].map((certificate) => certificate.pem.trim()).join('\n') + '\n';
  if (chainPem.length > MAX_STORED_CHAIN_CHARS) {
    throw new AppError('provisionCsrInvalid', { field: 'file', description: 'The certificate chain is too large to store' });
  }
  return { leaf: leafDescription, chainPem, path, trustAnchorFingerprint: anchor.fingerprintSha256 };
}

export interface CheckedTrustAnchor {
  description: CertificateDescription;
  pem: string;
}

/** Every certificate of the upload must be a CA certificate within its validity (`trustAnchorInvalid`). */
export function checkTrustAnchors(bundlePem: string, at: Date = new Date()): CheckedTrustAnchor[] {
  return parseBundle(bundlePem, 'trustAnchorInvalid').map((certificate) => {
    const description = describeCertificate(certificate);
    const refuse = (reason: string) =>
      new AppError('trustAnchorInvalid', {
        field: 'file',
        description: `"${description.subject}" cannot be a trust anchor: ${reason}`,
      });
    if (!description.isCa) throw refuse('it is not a certificate authority (basicConstraints cA is not set)');
    if (description.keyType === 'other') throw refuse('its key is neither RSA (2048 bits or more) nor EC P-256');
    const validity = validityAt(certificate, at);
    if (validity === 'expired') throw refuse(`it expired on ${description.notAfter.toISOString()}`);
    if (validity === 'notYetValid') throw refuse(`it is not valid before ${description.notBefore.toISOString()}`);
    if (certificate.pem.length > MAX_STORED_CHAIN_CHARS) throw refuse('it is too large to store');
    return { description, pem: certificate.pem };
  });
}

export function toCertificateInfo(description: CertificateDescription, development: boolean): TCertificateInfo {
  return {
    subject: description.subject,
    issuer: description.issuer,
    serialNumber: description.serialNumber,
    notBefore: description.notBefore.toISOString(),
    notAfter: description.notAfter.toISOString(),
    keyUsage: description.keyUsage,
    fingerprintSha256: description.fingerprintSha256,
    keyType: description.keyType,
    development,
  };
}

function parseBundle(bundlePem: string, token: 'provisionCsrInvalid' | 'trustAnchorInvalid'): ParsedCertificate[] {
  try {
    return parseCertificateBundle(bundlePem);
  } catch (error) {
    if (!isCryptoError(error)) throw error;
    throw new AppError(token, {
      field: 'file',
      description: `The file is not a PEM certificate (${error.message}); expected -----BEGIN CERTIFICATE----- blocks`,
    });
  }
}
