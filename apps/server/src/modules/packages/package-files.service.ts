import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Kysely, Transaction } from 'kysely';
import type { TClassification, TPackageFile } from '@manifold/contract';
import type { ClassificationGate } from '../access-control/access-control.service.js';
import {
  CONTENT_OVERHEAD_BYTES,
  createContentDecryptStream,
  createContentEncryptStream,
  generateContentKey,
  wrapContentKey,
} from '../../crypto/design-keys.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ImageRow, PackageFileRow, PackageFileValues, PackageRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { sanitizeContentType, sanitizeFileName } from '../../lib/file-names.js';
import { uploadError } from '../../lib/upload-errors.js';
import { isoNow } from '../../lib/time.js';
import { chain } from '../../lib/upload-streams.js';
import { readZipThumbnail } from '../../lib/zip-thumbnail.js';
import { DigestCounter, type Storage, type StoredObject } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { IMAGE_MAX_BYTES, sniffImage, storeImage } from '../images/images.js';
import { ImagesRepository } from '../images/images.repository.js';
import type { DesignKeys } from './design-keys.port.js';
import { PackagesRepository, toFile } from './packages.repository.js';
import { parseClassification } from '../access-control/classification.js';

export interface UploadInput {
  dsiId: string;
  isPublic: boolean;
  /** CUI, FCI or null: the upload and every download are gated by the matching constraint. */
  classification: TClassification | null;
  /** As the client named it: kept as data only. */
  fileName: string | undefined;
  contentType: string | undefined;
  /** The file's bytes; errors when the upload is cut off or too large. */
  stream: Readable;
}

export interface OpenedFile {
  file: TPackageFile;
  stream: Readable;
  /** Bytes the stream yields. */
  size: number;
}

/**
 * Files of design packages: streamed to storage (never held in memory), SHA-256 and size taken
 * on the way, private ones encrypted at rest with a content key per file (AES-256-GCM) that is
 * wrapped for the server's encryption certificate and kept with the row. A row is written only
 * after its object is durable; an object is removed when its row could not be written.
 */
export class PackageFilesService {
  constructor(
    private readonly database: Database,
    private readonly storage: Storage,
    private readonly keys: DesignKeys,
    private readonly uploadMaxBytes: number,
    private readonly classificationGate: ClassificationGate,
  ) {}

  private packages(db: Kysely<DB> = this.database.db): PackagesRepository {
    return new PackagesRepository(db);
  }

  async upload(input: UploadInput, caller: Caller): Promise<TPackageFile> {
    await this.classificationGate.requireForLabel(caller, input.classification, 'upload');
    if (!(await this.packages().findPackage(input.dsiId))) throw new AppError('packageNotPresent', { field: 'dsiId' });
    const sealing = input.isPublic ? undefined : await this.newContentKey();
    const plain = new DigestCounter(this.uploadMaxBytes);
    const stored = await this.store(input.stream, plain, sealing?.contentKey);
    const now = isoNow();
    const row: PackageFileValues = {
      id: randomUUID(),
      package_id: input.dsiId,
      file_name: sanitizeFileName(input.fileName),
      content_type: sanitizeContentType(input.contentType),
      size: plain.size,
      sha256: plain.sha256(),
      is_public: input.isPublic ? 1 : 0,
      storage_key: stored.key,
      stored_size: stored.size,
      wrapped_key: sealing?.wrappedKey ?? null,
      classification: input.classification,
      created_by: caller.username,
      created_at: now,
      updated_at: now,
    };
    const thumbnail = input.isPublic ? await this.orRemove([stored.key], () => this.thumbnailImage(row)) : undefined;
    await this.orRemove([stored.key, thumbnail?.storage_key], () =>
      this.database.transaction(async (trx) => {
        // locked: a package deleted meanwhile answers packageNotPresent, not a foreign-key failure
        if (!(await this.lockPackage(trx, input.dsiId))) throw new AppError('packageNotPresent', { field: 'dsiId' });
        await this.packages(trx).insertFile(row);
        await this.audit(trx).recordBy(caller, 'designPackageFileAdded', input.dsiId, {
          fileId: row.id,
          fileName: row.file_name,
          size: plain.size,
          sha256: row.sha256,
          isPublic: input.isPublic,
        });
        if (thumbnail) await this.adoptThumbnail(trx, row.package_id, thumbnail);
      }),
    );
    return toFile(row);
  }

  async setPrivacy(input: { fileId: string; isPublic: boolean }, caller: Caller): Promise<TPackageFile> {
    const row = await this.packages().findFile(input.fileId);
    if (!row) throw new AppError('packageFileNotPresent', { field: 'fileId' });
    if ((row.is_public === 1) === input.isPublic) return toFile(row);

    const sealing = input.isPublic ? undefined : await this.newContentKey();
    const source = await this.storage.get(row.storage_key);
    const plain = new DigestCounter();
    let stored: StoredObject;
    if (input.isPublic) {
      const contentKey = await this.keys.unwrapContentKey(row.wrapped_key ?? '');
      stored = await this.storeChecked(chain(source, createContentDecryptStream(contentKey), plain), row);
    } else {
      stored = await this.storeChecked(chain(source, plain, createContentEncryptStream(sealing!.contentKey)), row);
    }
    if (plain.sha256() !== row.sha256) {
      await this.storage.delete(stored.key);
      throw new AppError('packageFileCorrupted', { field: 'fileId' });
    }
    const updated: PackageFileValues = {
      ...row,
      size: Number(row.size),
      is_public: input.isPublic ? 1 : 0,
      storage_key: stored.key,
      stored_size: stored.size,
      wrapped_key: sealing?.wrappedKey ?? null,
      updated_at: isoNow(),
    };
    const thumbnail = input.isPublic ? await this.orRemove([stored.key], () => this.thumbnailImage(updated)) : undefined;
    await this.orRemove([stored.key, thumbnail?.storage_key], () =>
      this.database.transaction(async (trx) => {
        // a build of the package reading the old object commits its revision first (then the object stays)
        await this.lockPackage(trx, row.package_id);
        const swapped = await this.packages(trx).replaceFileObject(row.id, row.storage_key, {
          is_public: updated.is_public,
          storage_key: updated.storage_key,
          stored_size: updated.stored_size,
          wrapped_key: updated.wrapped_key,
          updated_at: updated.updated_at,
        });
        if (!swapped)
          throw new AppError('packageFileNotPresent', {
            field: 'fileId',
            description: 'The file was changed or deleted meanwhile; reload it',
          });
        await this.audit(trx).recordBy(caller, 'designPackageFilePrivacyChanged', row.package_id, {
          fileId: row.id,
          isPublic: input.isPublic,
        });
        if (thumbnail) await this.adoptThumbnail(trx, row.package_id, thumbnail);
      }),
    );
    await this.removeIfUnused(row.storage_key);
    return toFile(updated);
  }

  async delete(input: { fileId: string }, caller: Caller): Promise<void> {
    const row = await this.database.transaction(async (trx) => {
      const file = await this.packages(trx).findFile(input.fileId);
      if (!file) throw new AppError('packageFileNotPresent', { field: 'fileId' });
      // a build of the package that read the file commits its revision first: its object then stays
      await this.lockPackage(trx, file.package_id);
      const found = await this.packages(trx).findFile(input.fileId);
      if (!found) throw new AppError('packageFileNotPresent', { field: 'fileId' });
      await this.packages(trx).deleteFile(found.id);
      await this.audit(trx).recordBy(caller, 'designPackageFileDeleted', found.package_id, {
        fileId: found.id,
        fileName: found.file_name,
      });
      return found;
    });
    await this.removeIfUnused(row.storage_key);
  }

  /**
   * Opens a file for download and records the access (`publicFileAccessed`) or the decryption
   * (`privateFileDecrypted`). Private files: ADMIN only. A private file's stream is decrypted on
   * the fly and errors at its end when the GCM tag does not verify; the caller must then abort
   * the response rather than complete it.
   */
  async open(fileId: string, caller: Caller): Promise<OpenedFile> {
    const row = await this.packages().findFile(fileId);
    if (!row) throw new AppError('packageFileNotPresent', { field: 'fileId' });
    const isPublic = row.is_public === 1;
    if (!isPublic && caller.role !== 'ADMIN') throw new AppError('actionNotAllowed');
    await this.classificationGate.requireForLabel(caller, parseClassification(row.classification), 'download');
    const contentKey = isPublic ? undefined : await this.keys.unwrapContentKey(row.wrapped_key ?? '');
    const source = await this.storage.get(row.storage_key);
    await this.audit().recordBy(caller, isPublic ? 'publicFileAccessed' : 'privateFileDecrypted', row.package_id, {
      fileId: row.id,
      fileName: row.file_name,
    });
    const stream = contentKey ? chain(source, createContentDecryptStream(contentKey)) : source;
    return { file: toFile(row), stream, size: Number(row.size) };
  }

  private async newContentKey(): Promise<{ contentKey: Buffer; wrappedKey: string }> {
    const { certificatePem } = await this.keys.encryptionIdentity();
    const contentKey = generateContentKey();
    return { contentKey, wrappedKey: await wrapContentKey(contentKey, certificatePem) };
  }

  /** Streams an upload into storage: counted and hashed, encrypted when a key is given. */
  private async store(source: Readable, plain: DigestCounter, contentKey: Buffer | undefined): Promise<StoredObject> {
    const stages = contentKey ? chain(source, plain, createContentEncryptStream(contentKey)) : chain(source, plain);
    try {
      return await this.storage.put(stages, { maxBytes: this.uploadMaxBytes + (contentKey ? CONTENT_OVERHEAD_BYTES : 0) });
    } catch (error) {
      throw uploadError(error);
    }
  }

  /** Rewrites a stored file (privacy switch); a decryption failure means the stored bytes are damaged. */
  private async storeChecked(stages: Readable, row: PackageFileRow): Promise<StoredObject> {
    try {
      return await this.storage.put(stages);
    } catch (error) {
      if (error instanceof Error && error.name === 'CryptoError') {
        throw new AppError('packageFileCorrupted', {
          field: 'fileId',
          description: `The stored file ${row.id} does not decrypt: ${error.message}`,
        });
      }
      throw error;
    }
  }

  /** Runs `work`; when it fails, the stored objects it was to refer to are removed (nothing half done stays). */
  private async orRemove<T>(keys: (string | undefined)[], work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      for (const key of keys) if (key) await this.storage.delete(key);
      throw error;
    }
  }

  private async removeIfUnused(key: string): Promise<void> {
    if (!(await this.packages().storageKeyInUse(key))) await this.storage.delete(key);
  }

  /**
   * A public 3MF's thumbnail, stored as an image ready to become the package's display image when
   * the package has none (undefined otherwise, and for anything that is not a 3MF with a usable
   * thumbnail). Private files are left alone: their content is readable only through a recorded
   * decryption, and a display image is shown to every user.
   */
  private async thumbnailImage(row: PackageFileValues): Promise<ImageRow | undefined> {
    const pkg = await this.packages().findPackage(row.package_id);
    if (!pkg || pkg.display_image !== null || !looksLike3mf(row)) return undefined;
    const thumbnail = await readZipThumbnail(
      {
        size: Number(row.stored_size),
        // an empty zip entry (an empty `_rels/.rels` or thumbnail) is a read of nothing, not a range
        read: async (start, length) =>
          length === 0 ? Buffer.alloc(0) : buffer(await this.storage.get(row.storage_key, { start, end: start + length - 1 })),
      },
      IMAGE_MAX_BYTES,
    );
    if (!thumbnail || !sniffImage(thumbnail)) return undefined;
    return storeImage(this.storage, thumbnail, 'package');
  }

  /** In the file's own transaction: the thumbnail becomes the display image, unless another got there first. */
  private async adoptThumbnail(trx: Transaction<DB>, packageId: string, image: ImageRow): Promise<void> {
    await new ImagesRepository(trx).insert(image);
    if (!(await this.packages(trx).setDisplayImageIfNone(packageId, image.name))) {
      await new ImagesRepository(trx).delete(image.name);
      await this.storage.delete(image.storage_key);
    }
  }

  /** The package row, locked until the transaction ends (serialises with builds and deletes of the package). */
  private lockPackage(trx: Kysely<DB>, dsiId: string): Promise<PackageRow | undefined> {
    return this.packages(trx).lockPackage(dsiId, this.database.dialect);
  }

  private audit(db: Kysely<DB> = this.database.db): AuditRepository {
    return new AuditRepository(db, this.database.dialect);
  }
}

function looksLike3mf(row: PackageFileRow): boolean {
  return row.file_name.toLowerCase().endsWith('.3mf') || row.content_type.includes('3mf');
}
