import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, X509Certificate } from '@peculiar/x509';
import { createPublicKey, type KeyObject, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { memoized } from '../lib/memo.js';
import { CryptoError } from './crypto-errors.js';
import { importPublicKey, keyTypeOf, spkiDer, type KeyType } from './key-pairs.js';

export type KeyUsageName = keyof typeof KeyUsageFlags;

export interface CertificateDescription {
  /** RFC 4514-style string, e.g. `CN=Acme manage signing, O=Acme, OU=manage`. */
  subject: string;
  issuer: string;
  /** Upper-case hex without separators. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  keyUsage: KeyUsageName[];
  /** SHA-256 over the DER certificate, upper-case hex pairs joined by colons. */
  fingerprintSha256: string;
  /** `other` for keys this product does not use (e.g. Ed25519). */
  keyType: KeyType | 'other';
  isCa: boolean;
}

/** A parsed certificate: the PEM it came from plus both parsers' views. */
export interface ParsedCertificate {
  pem: string;
  x509: X509Certificate;
  node: NodeX509Certificate;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const KEY_USAGE_NAMES = Object.keys(KeyUsageFlags).filter((name) => Number.isNaN(Number(name))) as KeyUsageName[];
const ACCEPTED_SIGNATURE_HASHES = new Set(['SHA-256', 'SHA-384', 'SHA-512']);
const MAX_CHAIN_LENGTH = 8;

/**
 * Parses one PEM certificate; throws `malformed`. The last 256 distinct certificates are kept
 * parsed: the same few (this server's own, a recipient's, a peer's) are read on every signed
 * document, and parsing one costs more than signing. Callers treat the result as read-only.
 */
export const parseCertificate = memoized(parseCertificateOnce, 256);

function parseCertificateOnce(pem: string): ParsedCertificate {
  try {
    const node = new NodeX509Certificate(pem);
    return { pem: node.toString(), x509: new X509Certificate(node.raw), node };
  } catch (cause) {
    throw new CryptoError('malformed', 'Not a PEM certificate', { cause });
  }
}

/** Parses a PEM bundle (leaf first, then its chain, as uploaded) in order; throws `malformed`. */
const bundleKeys = new Map<string, KeyObject>();
const BUNDLE_KEYS_KEPT = 1024;

/**
 * The public key of a bundle's first certificate (a machine's registered signing certificate),
 * kept for the bundles seen last: a machine's every request is checked against it, and reading
 * a certificate costs more than checking a signature.
 */
export function firstCertificateKey(pemBundle: string): KeyObject {
  let key = bundleKeys.get(pemBundle);
  if (!key) {
    key = importPublicKey(parseCertificateBundle(pemBundle)[0]!.pem);
    if (bundleKeys.size >= BUNDLE_KEYS_KEPT) bundleKeys.delete(bundleKeys.keys().next().value!);
    bundleKeys.set(pemBundle, key);
  }
  return key;
}

export function parseCertificateBundle(pemBundle: string): ParsedCertificate[] {
  const blocks = pemBundle.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new CryptoError('malformed', 'No PEM certificate found');
  return blocks.map(parseCertificate);
}

export function describeCertificate(certificate: ParsedCertificate | string): CertificateDescription {
  const { x509, node } = typeof certificate === 'string' ? parseCertificate(certificate) : certificate;
  return {
    subject: x509.subject,
    issuer: x509.issuer,
    serialNumber: node.serialNumber.toUpperCase(),
    notBefore: x509.notBefore,
    notAfter: x509.notAfter,
    keyUsage: keyUsageNames(x509),
    fingerprintSha256: node.fingerprint256,
    keyType: keyTypeOrOther(node),
    isCa: isCa(x509),
  };
}

/**
 * Whether the certificate certifies this public key (SPKI, certificate or private key PEM, or an
 * imported key, whose public half is taken).
 */
export function certificateMatchesPublicKey(certificate: ParsedCertificate | string, key: string | KeyObject): boolean {
  const parsed = typeof certificate === 'string' ? parseCertificate(certificate) : certificate;
  return keptSpki(parsed, () => parsed.node.publicKey).equals(
    typeof key === 'string' ? spkiDer(importPublicKey(key)) : keptSpki(key, () => createPublicKey(key)),
  );
}

/** The DER public key of a parsed certificate or an imported key, exported once per object. */
const spkiKept = new WeakMap<object, Buffer>();
function keptSpki(owner: object, publicKey: () => KeyObject): Buffer {
  let der = spkiKept.get(owner);
  if (!der) {
    der = spkiDer(publicKey());
    spkiKept.set(owner, der);
  }
  return der;
}

export type Validity = 'valid' | 'expired' | 'notYetValid';

export function validityAt(certificate: ParsedCertificate | string, at: Date): Validity {
  const { x509 } = typeof certificate === 'string' ? parseCertificate(certificate) : certificate;
  if (at.getTime() < x509.notBefore.getTime()) return 'notYetValid';
  if (at.getTime() > x509.notAfter.getTime()) return 'expired';
  return 'valid';
}

export type ChainFailure = 'keyMismatch' | 'expired' | 'notYetValid' | 'untrustedRoot' | 'badSignature' | 'notACa' | 'malformed';

export type ChainVerification =
  | {
      valid: true;
      /** Leaf first, the trust anchor last. */
      path: CertificateDescription[];
    }
  | {
      valid: false;
      failure: ChainFailure;
      /** A sentence for logs and for the admin. */
      description: string;
      /** The subject of the certificate the failure is about, when there is one. */
      subject?: string;
    };

export interface ChainVerificationInput {
  /** The leaf certificate PEM; a bundle is accepted and its first certificate is the leaf. */
  leaf: string;
  /** Intermediate CA certificates in any order (PEMs or bundles). */
  intermediates?: string[];
  /** The trust anchors (root certificates) the chain must end in. */
  trustAnchors: string[];
  /** The instant to check validity at; default now. */
  at?: Date;
  /** When given, the leaf must certify this key (SPKI, certificate or private key PEM). */
  expectedPublicKeyPem?: string;
}

/**
 * Builds a path from the leaf through the intermediates to one of the trust anchors and checks
 * it: every signature (SHA-256 or stronger), that every issuer is a CA (basicConstraints cA,
 * keyCertSign when keyUsage is present, pathLenConstraint), and every validity period. Names are
 * matched by their exact DER encoding. The first failure found is reported.
 */
export function verifyCertificateChain(input: ChainVerificationInput): ChainVerification {
  let leaf: ParsedCertificate;
  let pool: ParsedCertificate[];
  let anchors: ParsedCertificate[];
  try {
    const bundle = parseCertificateBundle(input.leaf);
    leaf = bundle[0] as ParsedCertificate;
    pool = [...bundle.slice(1), ...(input.intermediates ?? []).flatMap(parseCertificateBundle)];
    anchors = input.trustAnchors.flatMap(parseCertificateBundle);
  } catch (error) {
    return { valid: false, failure: 'malformed', description: messageOf(error) };
  }

  if (input.expectedPublicKeyPem !== undefined && !safeMatches(leaf, input.expectedPublicKeyPem)) {
    return fail('keyMismatch', leaf, 'The certificate does not certify the expected public key');
  }

  const path: ParsedCertificate[] = [leaf];
  for (;;) {
    const current = path[path.length - 1] as ParsedCertificate;
    if (path.length > MAX_CHAIN_LENGTH) return fail('untrustedRoot', current, 'Certificate chain is too long');
    const weak = weakSignature(current);
    if (weak) return fail('badSignature', current, weak);

    const anchorCandidates = anchors.filter((anchor) => issuedBy(current, anchor));
    const anchor = anchorCandidates.find((candidate) => signatureVerifies(current, candidate));
    if (anchor) {
      path.push(anchor);
      break;
    }
    const candidates = pool.filter((certificate) => issuedBy(current, certificate));
    const issuer = candidates.find((candidate) => signatureVerifies(current, candidate));
    if (issuer) {
      path.push(issuer);
      pool = pool.filter((certificate) => certificate !== issuer);
      continue;
    }
    if (anchorCandidates.length > 0 || candidates.length > 0) {
      return fail('badSignature', current, `The signature of "${current.x509.subject}" does not verify with its issuer's key`);
    }
    return fail('untrustedRoot', current, `Issuer "${current.x509.issuer}" is not a trusted anchor nor a supplied intermediate`);
  }

  for (const [index, issuer] of path.entries()) {
    if (index === 0) continue;
    const problem = caProblem(issuer, index - 1);
    if (problem) return fail('notACa', issuer, problem);
  }

  const at = input.at ?? new Date();
  for (const certificate of path) {
    const validity = validityAt(certificate, at);
    if (validity === 'expired') {
      return fail('expired', certificate, `"${certificate.x509.subject}" expired on ${certificate.x509.notAfter.toISOString()}`);
    }
    if (validity === 'notYetValid') {
      return fail(
        'notYetValid',
        certificate,
        `"${certificate.x509.subject}" is not valid before ${certificate.x509.notBefore.toISOString()}`,
      );
    }
  }

  return { valid: true, path: path.map((certificate) => describeCertificate(certificate)) };
}

function fail(failure: ChainFailure, certificate: ParsedCertificate, description: string): ChainVerification {
  return { valid: false, failure, description, subject: certificate.x509.subject };
}

function issuedBy(subject: ParsedCertificate, issuer: ParsedCertificate): boolean {
  return Buffer.from(subject.x509.issuerName.toArrayBuffer()).equals(Buffer.from(issuer.x509.subjectName.toArrayBuffer()));
}

function signatureVerifies(subject: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return subject.node.verify(issuer.node.publicKey);
  } catch {
    return false;
  }
}

function weakSignature(certificate: ParsedCertificate): string | undefined {
  const hash = signatureHashName(certificate);
  return ACCEPTED_SIGNATURE_HASHES.has(hash)
    ? undefined
    : `"${certificate.x509.subject}" is signed with hash ${hash}; SHA-256 or stronger is required`;
}

/** @peculiar/x509 types its algorithms with DOM types this server does not load; read defensively. */
function signatureHashName(certificate: ParsedCertificate): string {
  const hash: unknown = Reflect.get(certificate.x509.signatureAlgorithm, 'hash');
  const name: unknown = typeof hash === 'object' && hash !== null ? Reflect.get(hash, 'name') : undefined;
  return typeof name === 'string' ? name.toUpperCase() : 'unknown';
}

/** Why this certificate cannot issue a certificate with `caCertificatesBelow` CA certificates beneath it. */
function caProblem(issuer: ParsedCertificate, caCertificatesBelow: number): string | undefined {
  const constraints = issuer.x509.getExtension(BasicConstraintsExtension);
  if (!constraints?.ca) return `"${issuer.x509.subject}" is not a certificate authority (basicConstraints cA is not set)`;
  const keyUsage = issuer.x509.getExtension(KeyUsagesExtension);
  if (keyUsage && (keyUsage.usages & KeyUsageFlags.keyCertSign) === 0) {
    return `"${issuer.x509.subject}" may not sign certificates (keyUsage lacks keyCertSign)`;
  }
  if (constraints.pathLength !== undefined && caCertificatesBelow > constraints.pathLength) {
    return `"${issuer.x509.subject}" allows ${constraints.pathLength} intermediate CAs below it, the chain has ${caCertificatesBelow}`;
  }
  return undefined;
}

function isCa(x509: X509Certificate): boolean {
  return x509.getExtension(BasicConstraintsExtension)?.ca === true;
}

function keyUsageNames(x509: X509Certificate): KeyUsageName[] {
  const usages = x509.getExtension(KeyUsagesExtension)?.usages ?? 0;
  return KEY_USAGE_NAMES.filter((name) => (usages & KeyUsageFlags[name]) !== 0);
}

function keyTypeOrOther(node: NodeX509Certificate): KeyType | 'other' {
  try {
    return keyTypeOf(node.publicKey);
  } catch {
    return 'other';
  }
}

function safeMatches(certificate: ParsedCertificate, publicKeyPem: string): boolean {
  try {
    return certificateMatchesPublicKey(certificate, publicKeyPem);
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
