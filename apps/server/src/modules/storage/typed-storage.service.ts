import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  storageFileNamePattern,
  storageTypeNamePattern,
  type TPage,
  type TPageQuery,
  type TStorageFile,
  type TStorageType,
} from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import type { ProviderStorage } from '../../storage/provider-storage.js';
import { StorageLimitError, type StoredObject } from '../../storage/storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { StorageRepository, toFile } from './storage.repository.js';

export interface OpenedStorageFile {
  file: TStorageFile;
  stream: Readable;
}

/** Whether a file name from a request may name a typed-storage file (one safe segment, no `..`). */
export function isStorageFileName(name: string): boolean {
  return storageFileNamePattern.test(name) && !name.includes('..') && name.trim() === name;
}

/**
 * Files kept by storage type and name (`storage/{type}/…`): streamed into the selected provider
 * under a generated key; the type and name are only looked up in the database, never turned
 * into a path. Storage must be enabled (a provider selected) and the type configured.
 */
export class TypedStorageService {
  constructor(
    private readonly database: Database,
    private readonly storage: ProviderStorage,
    private readonly uploadMaxBytes: number,
  ) {}

  private repository(db = this.database.db): StorageRepository {
    return new StorageRepository(db);
  }

  /** The type, once storage is enabled and the type exists and is configured. */
  async usableType(name: string): Promise<TStorageType> {
    if (!(await this.storage.selection())) throw new AppError('storageNotEnabled');
    const type = storageTypeNamePattern.test(name) ? await this.repository().type(name) : undefined;
    if (!type) throw new AppError('storageTypeUnavailable', { field: 'type' });
    if (!type.configured) throw new AppError('storageTypeNotConfigured', { field: 'type' });
    return type;
  }

  async list(typeName: string, page: TPageQuery): Promise<TPage<TStorageFile>> {
    const type = await this.usableType(typeName);
    return this.repository().files(type.name, page);
  }

  /** Stores the upload under its name in the type, replacing a file of the same name. */
  async upload(typeName: string, fileName: string, stream: Readable, caller: Caller): Promise<TStorageFile> {
    const type = await this.usableType(typeName);
    if (!isStorageFileName(fileName)) {
      stream.resume();
      throw new AppError('malformedRequest', {
        field: 'file',
        description: 'The file name may use letters, digits, ".", "_", "-" and spaces (at most 255, no "..")',
      });
    }
    const stored = await putUpload(this.storage, stream, this.uploadMaxBytes);
    const row = {
      id: randomUUID(),
      type_name: type.name,
      filename: fileName,
      size: stored.size,
      sha256: stored.sha256,
      storage_key: stored.key,
      created_by: caller.username,
      created_at: new Date().toISOString(),
    };
    let replaced: string | undefined;
    try {
      replaced = await this.database.transaction(async (trx) => {
        const files = this.repository(trx);
        await files.lockType(type.name, this.database.dialect);
        const previous = await files.replaceFile(row);
        await new AuditRepository(trx, this.database.dialect).recordBy(
          caller,
          'storageFileUploaded',
          `${type.name}/${fileName}`,
          {
            size: stored.size,
            sha256: stored.sha256,
          },
        );
        return previous;
      });
    } catch (error) {
      await this.storage.delete(stored.key).catch(() => undefined);
      throw error;
    }
    // the replaced file's object: the sweeper removes it should this fail
    if (replaced) await this.storage.delete(replaced).catch(() => undefined);
    return toFile(row);
  }

  async open(typeName: string, fileName: string): Promise<OpenedStorageFile> {
    const type = await this.usableType(typeName);
    const row = isStorageFileName(fileName) ? await this.repository().file(type.name, fileName) : undefined;
    if (!row) throw new AppError('entityDoesNotExist', { field: 'filename' });
    try {
      return { file: toFile(row), stream: await this.storage.get(row.storage_key) };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('storageTypeReadError', {
        field: 'filename',
        description: `The file could not be read: ${describe(error)}`,
      });
    }
  }
}

/**
 * Streams an upload's `file` into the provider: 413 `payloadTooLarge` over `maxBytes`,
 * `storageTypeWriteError` when the provider fails (nothing is left either way).
 */
export async function putUpload(storage: ProviderStorage, stream: Readable, maxBytes: number): Promise<StoredObject> {
  try {
    return await storage.put(stream, { maxBytes });
  } catch (error) {
    if (error instanceof StorageLimitError) {
      throw new AppError('payloadTooLarge', { field: 'file', description: `The file may have at most ${maxBytes} bytes` });
    }
    if (error instanceof AppError) throw error;
    throw new AppError('storageTypeWriteError', {
      field: 'file',
      description: `The file could not be written: ${describe(error)}`,
    });
  }
}

/** What a provider failure says, short. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown failure';
}
