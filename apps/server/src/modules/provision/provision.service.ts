import {
  csrKinds,
  keyTypes,
  services,
  uploadCertificateTypes,
  type TCertificateInfo,
  type TCsrQuery,
  type TCsrResponse,
  type TKeyType,
  type TProvisionCertificates,
  type TProvisionRequest,
  type TProvisionResponse,
  type TProvisionUploadResponse,
  type TService,
} from '@manifold/contract';
import type { Kysely } from 'kysely';
import { describeCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { createCsr } from '../../crypto/csr.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa, type DevelopmentCa } from '../../crypto/development-ca.js';
import { generateServiceKeyPairs, type KeyType } from '../../crypto/key-pairs.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation, retryOnConflict } from '../../db/dialect.js';
import type { DB, ServerKeyPairRow } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { checkServerCertificate, checkTrustAnchors, toCertificateInfo } from './certificate-checks.js';
import { CredentialsRepository, keyPurposes, type KeyPurpose } from './credentials.repository.js';
import type { KeySealer } from './key-sealer.js';
import type { ServerCredentials } from './server-credentials.service.js';

export interface ProvisionSettings {
  /** The site name CSR subjects carry. */
  siteName(): Promise<string>;
  /** `DEVELOPMENT_CA=true`. */
  developmentCa: boolean;
}

const oneOf = <T extends string>(values: readonly T[], value: string): value is T =>
  (values as readonly string[]).includes(value);

/**
 * Setting up the server's trust (spec §7 `admin/provision`, `admin/upload/provision`): key pairs,
 * CSRs, installed certificates, trust anchors, and the development CA for demos and tests.
 */
export class ProvisionService {
  constructor(
    private readonly database: Database,
    private readonly sealer: KeySealer,
    private readonly credentials: ServerCredentials,
    private readonly settings: ProvisionSettings,
  ) {}

  private repository(db: Kysely<DB> = this.database.db): CredentialsRepository {
    return new CredentialsRepository(db);
  }

  private audit(trx: Kysely<DB>): AuditRepository {
    return new AuditRepository(trx, this.database.dialect);
  }

  /** Creates both key pairs; with `rekey` replaces existing ones and drops their certificates. */
  async provision(input: TProvisionRequest, caller: Caller): Promise<TProvisionResponse> {
    const keyType = input.keyType?.trim() ?? '';
    if (!oneOf(keyTypes, keyType)) {
      throw new AppError('keyTypeInvalid', {
        field: 'keyType',
        description: `Key type must be RSA or EC, got "${keyType.slice(0, 16)}"`,
      });
    }
    const rekey = input.rekey === true;
    if (!rekey) this.assertNotProvisioned(await this.repository().keyPairs());
    const pairs = await generateServiceKeyPairs(keyType);
    const createdAt = isoNow();
    try {
      // concurrent re-keys take turns; a concurrent first provisioning answers provisionAlreadyIntialized
      return await retryOnConflict(
        () =>
          this.database.transaction(async (trx) => {
            const repository = this.repository(trx);
            // locked: a certificate install for a key this replaces either commits first (and its
            // certificate is dropped below) or finds the key replaced
            const existing = await repository.lockKeyPairs(this.database.dialect);
            if (!rekey) this.assertNotProvisioned(existing);
            const generation = Math.max(0, ...Object.values(existing).map((row) => Number(row.generation))) + 1;
            const droppedCertificates = rekey ? await this.dropCertificates(repository) : [];
            if (rekey) await repository.deleteKeyPairs();
            await repository.insertKeyPairs(
              keyPurposes.map((purpose) => ({
                purpose,
                key_type: keyType,
                public_key_pem: pairs[purpose].publicKeyPem,
                sealed_private_key: this.sealer.seal(pairs[purpose].privateKeyPem),
                generation,
                created_at: createdAt,
              })),
            );
            const rekeyed = Object.keys(existing).length > 0;
            await this.audit(trx).recordBy(caller, rekeyed ? 'serverKeysRekeyed' : 'serverKeysProvisioned', 'server', {
              keyType,
              generation,
              ...(rekeyed ? { droppedCertificates } : {}),
            });
            return { keyType, generation, createdAt };
          }),
        rekey ? 3 : 1,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('provisionAlreadyIntialized');
      throw error;
    }
  }

  /** PEM CSRs for the key pairs asked for; subjects carry the site name and the service. */
  async csrs(query: TCsrQuery): Promise<TCsrResponse> {
    const kind = query.csr?.trim() || 'both';
    if (!oneOf(csrKinds, kind)) throw new AppError('csrParameterInvalid', { field: 'csr' });
    const service = query.service?.trim() || 'manage';
    if (!oneOf(services, service)) throw new AppError('serviceInvalid', { field: 'service' });
    const wanted = keyPurposes.filter((purpose) => kind === 'both' || kind === purpose);
    const keys = await Promise.all(wanted.map((purpose) => this.credentials.key(purpose)));
    const siteName = await this.settings.siteName();
    const requests = await Promise.all(
      wanted.map(
        async (purpose, index) => [purpose, await this.csrFor(siteName, service, purpose, keys[index]!.privateKeyPem)] as const,
      ),
    );
    const byPurpose = Object.fromEntries(requests) as Partial<Record<KeyPurpose, string>>;
    return { signingCSR: byPurpose.signing ?? null, encryptionCSR: byPurpose.encryption ?? null };
  }

  /** `admin/upload/provision`: a certificate for one of the key pairs, or network roots. */
  async upload(certificateType: string | undefined, pem: string, caller: Caller): Promise<TProvisionUploadResponse> {
    const type = certificateType?.trim() ?? '';
    if (!oneOf(uploadCertificateTypes, type)) {
      throw new AppError('certificateTypeInvalid', {
        field: 'certificateType',
        description: 'certificateType must be signing, encryption or trustAnchor',
      });
    }
    if (type === 'trustAnchor') return this.addTrustAnchors(pem, caller, false);
    return this.installServerCertificate(type, pem, caller);
  }

  /** Everything the wizard shows: key type, both certificates, the trust anchors. */
  async certificates(): Promise<TProvisionCertificates> {
    const repository = this.repository();
    const [pairs, signing, encryption, anchors] = await Promise.all([
      repository.keyPairs(),
      repository.certificate('signing'),
      repository.certificate('encryption'),
      repository.trustAnchors(),
    ]);
    const info = (pem: string, development: number): TCertificateInfo =>
      toCertificateInfo(describeCertificate(parseCertificateBundle(pem)[0]!), Number(development) === 1);
    return {
      keyType: (pairs.signing?.key_type as TKeyType | undefined) ?? null,
      signing: signing ? info(signing.certificate_pem, signing.development) : null,
      encryption: encryption ? info(encryption.certificate_pem, encryption.development) : null,
      trustAnchors: anchors.map((anchor) => info(anchor.certificate_pem, anchor.development)),
      developmentCaEnabled: this.settings.developmentCa,
    };
  }

  /**
   * DEVELOPMENT ONLY (`DEVELOPMENT_CA=true`): creates a local network root CA once, trusts it
   * (marked development) and installs certificates it issues for both key pairs.
   */
  async createDevelopmentCa(caller: Caller): Promise<TProvisionCertificates> {
    if (!this.settings.developmentCa) {
      throw new AppError('actionNotAllowed', {
        description:
          'The development CA is off. It is for demonstrations and tests only: start the server with DEVELOPMENT_CA=true to enable it, ' +
          'or upload certificates issued by the network CA.',
      });
    }
    const signingKey = await this.credentials.key('signing');
    await this.credentials.key('encryption');
    const ca = await this.developmentCa(signingKey.keyType, caller);
    await this.addTrustAnchors(ca.certificatePem, caller, true);
    const siteName = await this.settings.siteName();
    for (const purpose of keyPurposes) {
      const { privateKeyPem } = await this.credentials.key(purpose);
      const certificatePem = await signCsrWithDevelopmentCa(ca, await this.csrFor(siteName, 'manage', purpose, privateKeyPem));
      await this.installServerCertificate(purpose, certificatePem, caller);
    }
    return this.certificates();
  }

  private async installServerCertificate(
    purpose: KeyPurpose,
    bundlePem: string,
    caller: Caller,
  ): Promise<TProvisionUploadResponse> {
    const repository = this.repository();
    const keyPair = await repository.keyPair(purpose);
    if (!keyPair) {
      throw new AppError('provisionNotInitialized', {
        description: `The server has no ${purpose} key pair yet: create the keys with POST /ui/admin/provision first`,
      });
    }
    const anchors = await repository.trustAnchors();
    const checked = checkServerCertificate({
      bundlePem,
      purpose,
      keyPair: { keyType: keyPair.key_type as KeyType, publicKeyPem: keyPair.public_key_pem },
      trustAnchors: anchors.map((anchor) => anchor.certificate_pem),
    });
    const development =
      Number(anchors.find((anchor) => anchor.fingerprint_sha256 === checked.trustAnchorFingerprint)?.development) === 1;
    // a concurrent upload for the same purpose may install first: then this one replaces it
    await retryOnConflict(() =>
      this.database.transaction(async (trx) => {
        const current = await this.repository(trx).keyPairHeld(purpose, this.database.dialect);
        if (current?.public_key_pem !== keyPair.public_key_pem) {
          throw new AppError('provisionCsrInvalid', {
            field: 'file',
            description: `The server's ${purpose} key was replaced while the certificate was checked; request a new CSR`,
          });
        }
        await this.repository(trx).replaceCertificate({
          purpose,
          certificate_pem: checked.chainPem,
          subject: checked.leaf.subject,
          issuer: checked.leaf.issuer,
          serial_number: checked.leaf.serialNumber,
          not_before: checked.leaf.notBefore.toISOString(),
          not_after: checked.leaf.notAfter.toISOString(),
          fingerprint_sha256: checked.leaf.fingerprintSha256,
          trust_anchor_fingerprint: checked.trustAnchorFingerprint,
          development: development ? 1 : 0,
          installed_at: isoNow(),
        });
        await this.audit(trx).recordBy(caller, 'serverCertificateInstalled', purpose, {
          subject: checked.leaf.subject,
          issuer: checked.leaf.issuer,
          serialNumber: checked.leaf.serialNumber,
          fingerprintSha256: checked.leaf.fingerprintSha256,
          development,
        });
      }),
    );
    const anchorDevelopment = (fingerprint: string) =>
      Number(anchors.find((anchor) => anchor.fingerprint_sha256 === fingerprint)?.development) === 1;
    return {
      certificateType: purpose,
      certificate: toCertificateInfo(checked.leaf, development),
      chain: checked.path.map((step) => toCertificateInfo(step, anchorDevelopment(step.fingerprintSha256) || development)),
    };
  }

  private async addTrustAnchors(bundlePem: string, caller: Caller, development: boolean): Promise<TProvisionUploadResponse> {
    const checked = checkTrustAnchors(bundlePem);
    // a concurrent upload of the same anchor may insert first: the next attempt finds it
    const stored = await retryOnConflict(() =>
      this.database.transaction(async (trx) => {
        const repository = this.repository(trx);
        const flags: boolean[] = [];
        for (const anchor of checked) {
          const fingerprint = anchor.description.fingerprintSha256;
          const existing = await repository.trustAnchor(fingerprint);
          if (existing) {
            flags.push(Number(existing.development) === 1);
            continue;
          }
          await repository.insertTrustAnchor({
            fingerprint_sha256: fingerprint,
            certificate_pem: anchor.pem,
            subject: anchor.description.subject,
            not_after: anchor.description.notAfter.toISOString(),
            development: development ? 1 : 0,
            created_at: isoNow(),
          });
          await this.audit(trx).recordBy(caller, 'trustAnchorAdded', anchor.description.subject, {
            fingerprintSha256: fingerprint,
            notAfter: anchor.description.notAfter.toISOString(),
            development,
          });
          flags.push(development);
        }
        return flags;
      }),
    );
    const infos = checked.map((anchor, index) => toCertificateInfo(anchor.description, stored[index] === true));
    return { certificateType: 'trustAnchor', certificate: infos[0]!, chain: infos.slice(1) };
  }

  private async developmentCa(keyType: KeyType, caller: Caller): Promise<DevelopmentCa> {
    const existing = await this.repository().developmentCa();
    if (existing) {
      return {
        keyType: existing.key_type as KeyType,
        certificatePem: existing.certificate_pem,
        privateKeyPem: this.sealer.open(existing.sealed_private_key),
      };
    }
    const ca = await createDevelopmentRootCa({ keyType });
    try {
      await this.database.transaction(async (trx) => {
        await this.repository(trx).insertDevelopmentCa({
          key_type: ca.keyType,
          certificate_pem: ca.certificatePem,
          sealed_private_key: this.sealer.seal(ca.privateKeyPem),
          created_at: isoNow(),
        });
        await this.audit(trx).recordBy(caller, 'developmentCaCreated', describeCertificate(ca.certificatePem).subject, {
          keyType: ca.keyType,
          fingerprintSha256: describeCertificate(ca.certificatePem).fingerprintSha256,
        });
      });
      return ca;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return this.developmentCa(keyType, caller); // another request created it first
    }
  }

  private async csrFor(siteName: string, service: TService, purpose: KeyPurpose, privateKeyPem: string): Promise<string> {
    try {
      return await createCsr({ siteName, service, purpose, privateKeyPem });
    } catch (error) {
      if (isCryptoError(error, 'invalidInput')) {
        throw new AppError('provisionFetchError', { description: `The ${purpose} CSR could not be produced: ${error.message}` });
      }
      throw error;
    }
  }

  private assertNotProvisioned(existing: Partial<Record<KeyPurpose, ServerKeyPairRow>>): void {
    if (Object.keys(existing).length > 0) {
      throw new AppError('provisionAlreadyIntialized', {
        description: 'The server keys already exist; send rekey: true to replace them (their certificates are dropped)',
      });
    }
  }

  private async dropCertificates(repository: CredentialsRepository): Promise<string[]> {
    const dropped: string[] = [];
    for (const purpose of keyPurposes) {
      const row = await repository.certificate(purpose);
      if (row) dropped.push(`${purpose}: ${row.subject} (${row.serial_number})`);
    }
    await repository.deleteCertificates();
    return dropped;
  }
}
