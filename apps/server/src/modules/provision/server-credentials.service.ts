import type { KeyObject } from 'node:crypto';
import {
  describeCertificate,
  parseCertificateBundle,
  verifyCertificateChain,
  type ChainVerification,
} from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { decryptWithKey, unwrapContentKey } from '../../crypto/design-keys.js';
import { signJsonDetached } from '../../crypto/jws.js';
import { importPrivateKey, type KeyType } from '../../crypto/key-pairs.js';
import { signXml } from '../../crypto/xml-signature.js';
import type { Database } from '../../db/database.js';
import type { ServerKeyPairRow } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import { memoized } from '../../lib/memo.js';
import { CredentialsRepository, type KeyPurpose } from './credentials.repository.js';
import type { KeySealer } from './key-sealer.js';

export interface ServerKey {
  keyType: KeyType;
  privateKeyPem: string;
  /** The same key imported, once per process like its opening. */
  privateKey: KeyObject;
  publicKeyPem: string;
}

export interface ServerIdentity extends ServerKey {
  /** The leaf certificate (PEM). */
  certificatePem: string;
  /** The leaf followed by its intermediates (PEM), as handed to peers. */
  chainPem: string;
  /** The leaf's serial number (upper-case hex). */
  serialNumber: string;
}

export interface ChainCheckOptions {
  at?: Date;
  /** When given, the leaf must certify this key. */
  expectedPublicKeyPem?: string;
}

/** The leaf of a chain and its serial number, parsed once per chain. */
const leafPem = memoized((chainPem: string) => parseCertificateBundle(chainPem)[0]!.pem);
const leafSerial = memoized((chainPem: string) => describeCertificate(leafPem(chainPem)).serialNumber);

/**
 * The server's own credentials for the features that sign, verify and decrypt: its signing and
 * encryption identities, the trust anchors of the network, and operations using them. The key
 * pair's row is read from the database for each use, so a re-key on another instance takes effect
 * at once; its sealed private key is opened once per process and again only when the row's sealed
 * text changes (a new key, or the same key sealed anew). Private keys never leave this object
 * except to the crypto functions.
 */
export class ServerCredentials {
  /** The last private key opened per purpose, with the sealed text it was opened from. */
  readonly #opened = new Map<KeyPurpose, { sealed: string; privateKeyPem: string; privateKey: KeyObject }>();

  constructor(
    private readonly database: Database,
    private readonly sealer: KeySealer,
  ) {}

  /** The private key sealed in `sealed`, opened and imported once for as long as the row holds that text. */
  #open(purpose: KeyPurpose, sealed: string): { privateKeyPem: string; privateKey: KeyObject } {
    const opened = this.#opened.get(purpose);
    if (opened?.sealed === sealed) return opened;
    const privateKeyPem = this.sealer.open(sealed);
    const entry = { sealed, privateKeyPem, privateKey: importPrivateKey(privateKeyPem) };
    this.#opened.set(purpose, entry);
    return entry;
  }

  private repository(): CredentialsRepository {
    return new CredentialsRepository(this.database.db);
  }

  /** The opened key pair of a purpose; `provisionNotInitialized` before `admin/provision`. */
  async key(purpose: KeyPurpose): Promise<ServerKey> {
    return this.#keyOf(purpose, await this.repository().keyPair(purpose));
  }

  /** Key pair plus installed certificate (one query); `provisionNotInitialized` when either is missing. */
  async identity(purpose: KeyPurpose): Promise<ServerIdentity> {
    const [row] = await this.repository().keyPairsWithCertificates([purpose]);
    return this.#identityOf(purpose, row);
  }

  /**
   * The signing identity and the encryption key pair in one query: a signed authorization signs
   * with the one and unwraps its files' content keys with the other.
   */
  async signingIdentityAndEncryptionKey(): Promise<{ signing: ServerIdentity; encryption: ServerKey }> {
    const rows = await this.repository().keyPairsWithCertificates(['signing', 'encryption']);
    const row = (purpose: KeyPurpose) => rows.find((candidate) => candidate.purpose === purpose);
    return { signing: this.#identityOf('signing', row('signing')), encryption: this.#keyOf('encryption', row('encryption')) };
  }

  #identityOf(purpose: KeyPurpose, row: (ServerKeyPairRow & { certificate_pem: string | null }) | undefined): ServerIdentity {
    const key = this.#keyOf(purpose, row);
    const chainPem = row!.certificate_pem;
    if (!chainPem) {
      throw new AppError('provisionNotInitialized', {
        description: `The server has no ${purpose} certificate yet: upload one with POST /ui/admin/upload/provision`,
      });
    }
    return { ...key, certificatePem: leafPem(chainPem), chainPem, serialNumber: leafSerial(chainPem) };
  }

  /** The key pair of a row read now, opened; `provisionNotInitialized` when there is none. */
  #keyOf(purpose: KeyPurpose, row: ServerKeyPairRow | undefined): ServerKey {
    if (!row) {
      throw new AppError('provisionNotInitialized', {
        description: `The server has no ${purpose} key pair yet: create the keys with POST /ui/admin/provision`,
      });
    }
    const { privateKeyPem, privateKey } = this.#open(purpose, row.sealed_private_key);
    return { keyType: row.key_type as KeyType, privateKeyPem, privateKey, publicKeyPem: row.public_key_pem };
  }

  /**
   * Serial number of the installed certificate of a purpose (without opening the key);
   * `provisionNotInitialized` before one is installed.
   */
  async certificateSerial(purpose: KeyPurpose): Promise<string> {
    const certificate = await this.repository().certificate(purpose);
    if (!certificate) {
      throw new AppError('provisionNotInitialized', {
        description: `The server has no ${purpose} certificate yet: upload one with POST /ui/admin/upload/provision`,
      });
    }
    return leafSerial(certificate.certificate_pem);
  }

  /** Serial number of the installed signing certificate (without opening the key). */
  signingSerial(): Promise<string> {
    return this.certificateSerial('signing');
  }

  signingIdentity(): Promise<ServerIdentity> {
    return this.identity('signing');
  }

  encryptionIdentity(): Promise<ServerIdentity> {
    return this.identity('encryption');
  }

  /** Enveloped XML-DSig by the signing identity (or the one the caller already read), its certificate in KeyInfo. */
  async signXml(xml: string, signer?: ServerIdentity): Promise<string> {
    return signXml(xml, signer ?? (await this.signingIdentity()));
  }

  /** JSON serialised once and signed as a detached JWS (with the certificate's x5t#S256). */
  async signJson(value: unknown): Promise<{ body: string; jws: string }> {
    const { privateKey, certificatePem } = await this.signingIdentity();
    return signJsonDetached(value, privateKey, { certificatePem });
  }

  /** A design content key wrapped for this server's encryption certificate. */
  async unwrapContentKey(wrappedKey: string): Promise<Buffer> {
    return (await this.unwrapContentKeys([wrappedKey]))[0]!;
  }

  /** Design content keys wrapped for this server's encryption certificate, the key read once (or the one given). */
  async unwrapContentKeys(wrappedKeys: string[], encryption?: ServerKey): Promise<Buffer[]> {
    if (wrappedKeys.length === 0) return [];
    const { privateKey } = encryption ?? (await this.key('encryption'));
    return Promise.all(wrappedKeys.map((wrappedKey) => unwrapContentKey(wrappedKey, privateKey)));
  }

  /** A compact JWE encrypted for this server's encryption certificate (FSS payloads). */
  async decrypt(jwe: string): Promise<Buffer> {
    const { privateKey } = await this.key('encryption');
    return decryptWithKey(jwe, privateKey);
  }

  /** The network's root certificates (PEM). */
  async trustAnchors(): Promise<string[]> {
    return (await this.repository().trustAnchors()).map((row) => row.certificate_pem);
  }

  /**
   * Verifies a peer's chain (leaf first; PEM bundle or one PEM per element) against the trust
   * anchors. Never throws for bad input: a malformed chain is a `malformed` failure.
   */
  async verifyWithTrustAnchors(chain: string | string[], options: ChainCheckOptions = {}): Promise<ChainVerification> {
    const [leaf, ...intermediates] = typeof chain === 'string' ? [chain] : chain;
    if (leaf === undefined || leaf.trim() === '') {
      return { valid: false, failure: 'malformed', description: 'No certificate was given' };
    }
    const trustAnchors = await this.trustAnchors();
    if (trustAnchors.length === 0) {
      return { valid: false, failure: 'untrustedRoot', description: 'This server has no trust anchors configured' };
    }
    try {
      return verifyCertificateChain({ leaf, intermediates, trustAnchors, ...options });
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      return { valid: false, failure: 'malformed', description: error.message };
    }
  }
}
