import { createCsr } from '../../src/crypto/csr.js';
import {
  createDevelopmentIntermediateCa,
  createDevelopmentRootCa,
  signCsrWithDevelopmentCa,
  type DevelopmentCa,
  type IssueOptions,
} from '../../src/crypto/development-ca.js';
import { generateKeyPair, type KeyType } from '../../src/crypto/key-pairs.js';
import type { CsrService } from '../../src/crypto/csr.js';

/** Test network CAs, made with the crypto library's development CA helpers. */
export function testRoot(
  commonName: string,
  keyType: KeyType = 'EC',
  options: { notBefore?: Date; notAfter?: Date } = {},
): Promise<DevelopmentCa> {
  return createDevelopmentRootCa({ keyType, commonName, ...options });
}

export function testIntermediate(parent: DevelopmentCa, commonName: string): Promise<DevelopmentCa> {
  return createDevelopmentIntermediateCa(parent, { keyType: 'EC', commonName });
}

export function issue(ca: DevelopmentCa, csrPem: string, options: IssueOptions = {}): Promise<string> {
  return signCsrWithDevelopmentCa(ca, csrPem, options);
}

/** A peer: its own key pair and a certificate from `ca` (for certificate exchange tests). */
export async function peerIdentity(
  ca: DevelopmentCa,
  options: { purpose?: 'signing' | 'encryption'; service?: CsrService; issue?: IssueOptions } = {},
): Promise<{ privateKeyPem: string; certificatePem: string }> {
  const { privateKeyPem } = await generateKeyPair('EC');
  const csr = await createCsr({
    siteName: 'Peer',
    service: options.service ?? 'manage',
    purpose: options.purpose ?? 'signing',
    privateKeyPem,
  });
  return { privateKeyPem, certificatePem: await issue(ca, csr, options.issue) };
}

export const DAY_MS = 86_400_000;
