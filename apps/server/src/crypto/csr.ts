import {
  KeyUsageFlags,
  KeyUsagesExtension,
  Pkcs10CertificateRequest,
  Pkcs10CertificateRequestGenerator,
  SubjectKeyIdentifierExtension,
  type JsonName,
} from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { CryptoError } from './crypto-errors.js';
import type { KeyPurpose, KeyType } from './key-pairs.js';
import { importWebCryptoKeyPair, x509SigningAlgorithmFor } from './webcrypto-keys.js';

/** The spec's service of a provisioned instance (§5 "Service must be manage, trace, enforce or protect"). */
export type CsrService = 'manage' | 'trace' | 'enforce' | 'protect';

export interface CsrRequest {
  siteName: string;
  service: CsrService;
  purpose: KeyPurpose;
  /** PKCS#8 PEM of the key pair the CSR is for; it signs the CSR (proof of possession). */
  privateKeyPem: string;
}

/** X.520 upper bound of commonName and organizationName. */
const MAX_NAME_LENGTH = 64;

/**
 * Subject of an instance certificate request:
 * `CN=<siteName> <service> <purpose>, O=<siteName>, OU=<service>`,
 * e.g. `CN=Acme manage signing, O=Acme, OU=manage`. The CN differs per purpose so the two
 * certificates of one instance are told apart at a glance; O and OU stay machine-readable. A
 * site name too long for the CN's 64 characters with its suffix (any the settings take, up to
 * 64) is shortened there, whole characters, and kept whole in O.
 */
export function csrSubject(siteName: string, service: CsrService, purpose: KeyPurpose): JsonName {
  const site = siteName.trim();
  if (site.length === 0) throw new CryptoError('invalidInput', 'Site name is empty');
  const characters = Array.from(site);
  if (characters.length > MAX_NAME_LENGTH) {
    throw new CryptoError('invalidInput', `Site name too long for a certificate subject (over ${MAX_NAME_LENGTH})`);
  }
  const suffix = ` ${service} ${purpose}`;
  const room = MAX_NAME_LENGTH - suffix.length;
  const shown = characters.length <= room ? site : characters.slice(0, room).join('').trimEnd();
  return [{ CN: [`${shown}${suffix}`] }, { O: [site] }, { OU: [service] }];
}

/**
 * Key usages requested for a purpose and key type:
 * - signing: digitalSignature + nonRepudiation (XML-DSig and JWS over authorizations and messages);
 * - encryption with RSA: keyEncipherment + dataEncipherment (content keys wrapped with RSA-OAEP);
 * - encryption with EC: keyAgreement (content keys wrapped with ECDH-ES; an EC key cannot encipher).
 */
export function keyUsagesFor(purpose: KeyPurpose, keyType: KeyType): KeyUsageFlags {
  if (purpose === 'signing') return KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation;
  return keyType === 'RSA' ? KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment : KeyUsageFlags.keyAgreement;
}

/**
 * Creates a PKCS#10 request (PEM), signed with SHA-256 (RSA PKCS#1 v1.5 or ECDSA) by the key it
 * certifies. The key usage (critical) and subject key identifier travel in an extensionRequest.
 */
export async function createCsr(request: CsrRequest): Promise<string> {
  const { keyType, keys } = await importWebCryptoKeyPair(request.privateKeyPem);
  const csr = await Pkcs10CertificateRequestGenerator.create(
    {
      name: csrSubject(request.siteName, request.service, request.purpose),
      keys,
      signingAlgorithm: x509SigningAlgorithmFor(keyType),
      extensions: [
        new KeyUsagesExtension(keyUsagesFor(request.purpose, keyType), true),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return csr.toString('pem');
}

export interface ParsedCsr {
  subject: string;
  /** Key usage flags requested in the extensionRequest; `undefined` when none. */
  keyUsage: KeyUsageFlags | undefined;
  request: Pkcs10CertificateRequest;
}

/** Parses a PEM CSR and checks its self-signature; throws `malformed` or `badSignature`. */
export async function parseAndVerifyCsr(csrPem: string): Promise<ParsedCsr> {
  let request: Pkcs10CertificateRequest;
  try {
    request = new Pkcs10CertificateRequest(csrPem);
  } catch (cause) {
    throw new CryptoError('malformed', 'Not a PEM certificate request', { cause });
  }
  let valid: boolean;
  try {
    valid = await request.verify(webcrypto);
  } catch (cause) {
    throw new CryptoError('badSignature', 'Certificate request signature cannot be checked', { cause });
  }
  if (!valid) throw new CryptoError('badSignature', 'Certificate request signature is invalid');
  return { subject: request.subject, keyUsage: requestedKeyUsage(request), request };
}

function requestedKeyUsage(request: Pkcs10CertificateRequest): KeyUsageFlags | undefined {
  const keyUsage = request.extensions.find((extension) => extension instanceof KeyUsagesExtension);
  return keyUsage instanceof KeyUsagesExtension ? keyUsage.usages : undefined;
}
