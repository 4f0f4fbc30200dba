import { createHash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import {
  type TDesignPackage,
  type TDesignReceived,
  type TPackageManifest,
  ZDesignPackage,
  ZPackageManifest,
} from '@manifold/contract';
import { describeCertificate } from '../../crypto/certificates.js';
import { isCryptoError } from '../../crypto/crypto-errors.js';
import { CONTENT_OVERHEAD_BYTES, createContentDecryptStream } from '../../crypto/design-keys.js';
import { verifyDetachedJws } from '../../crypto/jws.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { NewRevisionFileRow, RevisionRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/time.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';
import { chain } from '../../lib/upload-streams.js';
import { uploadError } from '../../lib/upload-errors.js';
import { DigestCounter, type Storage } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { IncomingFiles, StoredFiles } from '../outbox/peer-messages.service.js';
import type { ServerCredentials } from '../provision/server-credentials.service.js';
import { checkPeerChain, parseApl } from '../registrations/apl-checks.js';
import { PeerDesignsRepository } from './peer-designs.repository.js';

/** A design package whose files are stored and checked, waiting for its rows. */
export interface ReceivedDesign {
  manifest: TPackageManifest;
  input: TDesignPackage;
  signerSerial: string;
  files: NewRevisionFileRow[];
  /** Set by {@link DesignPackages.apply} when its rows refer to the stored files. */
  used: boolean;
}

/** Who a design came from, for its audit record. */
export interface DesignSource {
  actor: string;
  sourceIp: string;
  from: { manageId: string } | { protectId: string };
}

/**
 * Design packages as `/mpf/design` receives them, from a Manage peer (`das/transfer` there) or
 * a Protect: the manifest must be signed by a certificate chaining to a trust anchor, each file
 * must match the manifest (SHA-256 and size of the plaintext; private files are decrypted with
 * their content key, wrapped for this instance, to check), and the revision is then stored as
 * built elsewhere — same revision id, manifest, signature — so orders naming it map here.
 */
export class DesignPackages {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly credentials: ServerCredentials,
    private readonly uploadMaxBytes: number,
  ) {}

  /** Checks the package and stores its files (before any transaction); `field` names the JSON in errors. */
  async store(body: unknown, files: IncomingFiles, field: string): Promise<StoredFiles & { value: ReceivedDesign }> {
    const input = parseApl(ZDesignPackage, body, field);
    const invalid = (at: string, description: string) =>
      new AppError('registrationExchangeInvalidApl', { field: `${field}.${at}`, description });
    const notManifest = () => invalid('manifest', 'The manifest is not a design manifest (JSON of manifest version 1)');
    // JSON text in the design: its values held to what a JSON body is (they become columns)
    const parsed = ZPackageManifest.safeParse(parseCarryableJson(input.manifest, `${field}.manifest`, notManifest));
    if (!parsed.success) throw notManifest();
    const manifest: TPackageManifest = parsed.data;
    if (canonicalJson(manifest) !== input.manifest) throw invalid('manifest', 'The manifest is not in canonical JSON');
    const signer = await checkPeerChain(this.credentials, input.signerCertificate, `${field}.signerCertificate`);
    try {
      await verifyDetachedJws(input.manifestSignature, input.manifest, signer);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw new AppError('registrationSignatureInvalid', {
        field: `${field}.manifestSignature`,
        description: `The manifest signature does not verify: ${error.message}`,
      });
    }
    const keys = new Map(input.files.map((file) => [file.fileId, file.wrappedKey]));
    if (keys.size !== manifest.files.length || manifest.files.some((file) => !keys.has(file.fileId))) {
      throw invalid('files', 'Name every file of the manifest once');
    }
    for (const file of manifest.files) {
      if (file.isPublic !== (keys.get(file.fileId) === null)) {
        throw invalid('files', `File ${file.fileId}: a private file needs its wrapped key, a public one none`);
      }
    }
    const stored: string[] = [];
    const discard = async () => {
      for (const key of stored) await this.storage.delete(key);
    };
    const rows: NewRevisionFileRow[] = [];
    try {
      for (const file of manifest.files) {
        const part = await files.next();
        if (!part) throw new AppError('uploadFileMissing', { field: 'file', description: `No file part for ${file.fileId}` });
        const wrappedKey = keys.get(file.fileId) ?? null;
        let object;
        try {
          object = await this.storage.put(part.stream, { maxBytes: this.uploadMaxBytes + CONTENT_OVERHEAD_BYTES });
        } catch (error) {
          throw uploadError(error);
        }
        stored.push(object.key);
        await this.check(object.key, file, wrappedKey);
        rows.push({
          revision_id: input.revisionId,
          file_id: file.fileId,
          file_name: file.fileName.slice(0, 255),
          content_type: file.contentType.slice(0, 128),
          size: file.size,
          sha256: file.sha256,
          is_public: file.isPublic ? 1 : 0,
          storage_key: object.key,
          wrapped_key: wrappedKey,
        });
      }
    } catch (error) {
      await discard();
      throw error;
    }
    const value: ReceivedDesign = {
      manifest,
      input,
      signerSerial: describeCertificate(signer).serialNumber,
      files: rows,
      used: false,
    };
    return {
      value,
      done: async (applied) => {
        if (!applied || !value.used) await discard();
      },
    };
  }

  /**
   * Writes the revision (and its package when this instance has none of that id) in `trx`. The same
   * revision again changes nothing; another revision of the same dsiId and dsiVersion is refused.
   */
  async apply(trx: Kysely<DB>, received: ReceivedDesign, source: DesignSource): Promise<TDesignReceived> {
    const { manifest, input } = received;
    const repository = new PeerDesignsRepository(trx);
    const digest = createHash('sha256').update(input.manifest).digest('hex');
    const answer = { dsiId: manifest.dsiId, revisionId: input.revisionId, dsiVersion: manifest.dsiVersion, digest };
    const existing = await repository.revision(input.revisionId);
    if (existing) {
      if (existing.digest === digest) return answer;
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'revisionId',
        description: 'This instance holds another revision with this id',
      });
    }
    if (await repository.revisionAt(manifest.dsiId, manifest.dsiVersion)) {
      throw new AppError('registrationExchangeInvalidApl', {
        field: 'manifest',
        description: `This instance holds another revision ${manifest.dsiVersion} of design ${manifest.dsiId}`,
      });
    }
    const now = isoNow();
    if (!(await repository.packageExists(manifest.dsiId))) {
      await repository.insertPackage({
        id: manifest.dsiId,
        design_name: manifest.designName.slice(0, 256),
        description: manifest.description.slice(0, 4000),
        company_name: manifest.companyName.slice(0, 256),
        multi_platen: manifest.multiPlaten ? 1 : 0,
        display_image: null,
        version: manifest.packageVersion,
        created_by: source.actor,
        created_at: now,
        updated_at: now,
      });
    }
    const revision: RevisionRow = {
      id: input.revisionId,
      package_id: manifest.dsiId,
      dsi_version: manifest.dsiVersion,
      package_version: manifest.packageVersion,
      design_name: manifest.designName.slice(0, 256),
      description: manifest.description.slice(0, 4000),
      company_name: manifest.companyName.slice(0, 256),
      multi_platen: manifest.multiPlaten ? 1 : 0,
      display_image: null,
      manifest: input.manifest,
      digest,
      signature: input.manifestSignature,
      public_key_sn: received.signerSerial,
      created_by: source.actor,
      created_at: now,
      signer_certificate: input.signerCertificate.trim(),
    };
    await repository.insertRevision(revision, received.files);
    await new AuditRepository(trx, this.database.dialect).record({
      type: 'designReceived',
      actor: source.actor,
      subject: manifest.dsiId,
      sourceIp: source.sourceIp,
      details: { ...source.from, revisionId: input.revisionId, dsiVersion: manifest.dsiVersion, digest },
    });
    received.used = true;
    return answer;
  }

  /** Reads a stored file back: decrypted with its content key when private, it must match the manifest's size and SHA-256. */
  private async check(key: string, file: TPackageManifest['files'][number], wrappedKey: string | null): Promise<void> {
    let contentKey: Buffer | undefined;
    if (wrappedKey !== null) {
      try {
        contentKey = await this.credentials.unwrapContentKey(wrappedKey);
      } catch (error) {
        if (!isCryptoError(error)) throw error;
        throw new AppError('fssPayloadDecryptError', {
          field: 'files',
          description: `The content key of ${file.fileId} does not unwrap with this instance's encryption key: ${error.message}`,
        });
      }
    }
    const digest = new DigestCounter();
    const source = await this.storage.get(key);
    const stream = contentKey ? chain(source, createContentDecryptStream(contentKey), digest) : chain(source, digest);
    stream.resume();
    try {
      await finished(stream);
    } catch (error) {
      if (!isCryptoError(error)) throw error;
      throw corrupted(file.fileId, error.message);
    }
    if (digest.size !== file.size || digest.sha256() !== file.sha256) {
      throw corrupted(file.fileId, 'its size or SHA-256 differs from the manifest');
    }
  }
}

const corrupted = (fileId: string, reason: string) =>
  new AppError('packageFileCorrupted', { field: 'file', description: `File ${fileId} does not match the manifest: ${reason}` });
