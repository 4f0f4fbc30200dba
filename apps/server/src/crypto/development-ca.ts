import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
  type JsonName,
} from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { parseCertificate } from './certificates.js';
import { CryptoError } from './crypto-errors.js';
import { parseAndVerifyCsr } from './csr.js';
import { generateKeyPair, type KeyType } from './key-pairs.js';
import { importWebCryptoKeyPair, x509SigningAlgorithmFor } from './webcrypto-keys.js';

/**
 * DEVELOPMENT AND DEMO ONLY. A network certificate authority whose private key lives in memory or
 * in a test fixture, for local networks, demos and tests. A production network has its own CA;
 * nothing in the server should sign real instance certificates with this.
 */
export interface DevelopmentCa {
  keyType: KeyType;
  certificatePem: string;
  /** PKCS#8 PEM; development only. */
  privateKeyPem: string;
}

export interface DevelopmentCaOptions {
  keyType: KeyType;
  /** Default `Manifold Development CA (not for production)`. */
  commonName?: string;
  /** Default five minutes ago ({@link CLOCK_SKEW_ALLOWANCE_MS}). */
  notBefore?: Date;
  /** Default ten years after notBefore. */
  notAfter?: Date;
}

export interface IssueOptions {
  /** Default five minutes ago ({@link CLOCK_SKEW_ALLOWANCE_MS}). */
  notBefore?: Date;
  /** Default {@link DEVELOPMENT_CERTIFICATE_VALIDITY_DAYS} after notBefore. */
  notAfter?: Date;
}

export const DEVELOPMENT_CERTIFICATE_VALIDITY_DAYS = 730;
/** Default notBefore is this far in the past, so peers with a slightly slow clock accept new certificates. */
export const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;
const DEVELOPMENT_CA_VALIDITY_DAYS = 3650;
const DAY_MS = 86_400_000;
const CA_KEY_USAGE = KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign;

/** Creates a self-signed development root CA. */
export async function createDevelopmentRootCa(options: DevelopmentCaOptions): Promise<DevelopmentCa> {
  const { privateKeyPem } = await generateKeyPair(options.keyType);
  const { keys } = await importWebCryptoKeyPair(privateKeyPem);
  const name = caName(options.commonName ?? 'Manifold Development CA (not for production)');
  const notBefore = options.notBefore ?? backdatedNow();
  const certificate = await X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject: name,
      issuer: name,
      notBefore,
      notAfter: options.notAfter ?? addDays(notBefore, DEVELOPMENT_CA_VALIDITY_DAYS),
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: x509SigningAlgorithmFor(options.keyType),
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(CA_KEY_USAGE, true),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
        await AuthorityKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return { keyType: options.keyType, certificatePem: certificate.toString('pem'), privateKeyPem };
}

/** Creates a development intermediate CA signed by `parent` (for chains with intermediates). */
export async function createDevelopmentIntermediateCa(
  parent: DevelopmentCa,
  options: DevelopmentCaOptions,
): Promise<DevelopmentCa> {
  const { privateKeyPem } = await generateKeyPair(options.keyType);
  const { keys } = await importWebCryptoKeyPair(privateKeyPem);
  const notBefore = options.notBefore ?? backdatedNow();
  const certificatePem = await issue(parent, {
    subject: caName(options.commonName ?? 'Manifold Development Intermediate CA (not for production)'),
    publicKey: keys.publicKey,
    notBefore,
    notAfter: options.notAfter ?? addDays(notBefore, DEVELOPMENT_CA_VALIDITY_DAYS),
    ca: true,
    keyUsage: CA_KEY_USAGE,
  });
  return { keyType: options.keyType, certificatePem, privateKeyPem };
}

/**
 * Signs a CSR: checks the CSR's own signature first (`badSignature` otherwise), copies its
 * subject and requested key usage, and issues an end-entity certificate (cA false) with a random
 * positive serial, valid two years by default. A CSR without a key usage, or asking for
 * certificate signing, is refused (`invalidInput`).
 */
export async function signCsrWithDevelopmentCa(ca: DevelopmentCa, csrPem: string, options: IssueOptions = {}): Promise<string> {
  const csr = await parseAndVerifyCsr(csrPem);
  if (csr.keyUsage === undefined) throw new CryptoError('invalidInput', 'The request carries no key usage');
  if ((csr.keyUsage & CA_KEY_USAGE) !== 0) {
    throw new CryptoError('invalidInput', 'An end-entity certificate may not sign certificates or CRLs');
  }
  const notBefore = options.notBefore ?? backdatedNow();
  return issue(ca, {
    subject: csr.request.subjectName.toJSON(),
    publicKey: await csr.request.publicKey.export(webcrypto),
    notBefore,
    notAfter: options.notAfter ?? addDays(notBefore, DEVELOPMENT_CERTIFICATE_VALIDITY_DAYS),
    ca: false,
    keyUsage: csr.keyUsage,
  });
}

interface IssueRequest {
  subject: JsonName;
  publicKey: webcrypto.CryptoKey;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  keyUsage: KeyUsageFlags;
}

async function issue(issuer: DevelopmentCa, request: IssueRequest): Promise<string> {
  const issuerCertificate = parseCertificate(issuer.certificatePem).x509;
  const { keyType, keys } = await importWebCryptoKeyPair(issuer.privateKeyPem);
  const certificate = await X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject: request.subject,
      issuer: issuerCertificate.subjectName.toJSON(),
      notBefore: request.notBefore,
      notAfter: request.notAfter,
      publicKey: request.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: x509SigningAlgorithmFor(keyType),
      extensions: [
        new BasicConstraintsExtension(request.ca, request.ca ? 0 : undefined, true),
        new KeyUsagesExtension(request.keyUsage, true),
        await SubjectKeyIdentifierExtension.create(request.publicKey, false, webcrypto),
        await AuthorityKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  return certificate.toString('pem');
}

function caName(commonName: string): JsonName {
  return [{ CN: [commonName] }, { O: ['Manifold development network'] }];
}

/** 16 random bytes, top bit cleared (positive in DER) and never all-zero leading byte. */
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x10;
  return bytes.toString('hex');
}

function backdatedNow(): Date {
  return new Date(Date.now() - CLOCK_SKEW_ALLOWANCE_MS);
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}
