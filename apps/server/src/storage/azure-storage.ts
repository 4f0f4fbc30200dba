import type { Readable } from 'node:stream';
import type * as AzureBlobs from '@azure/storage-blob';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { lazyPackage } from '../lib/lazy-package.js';
import {
  newStorageKey,
  OBJECT_PREFIX,
  objectName,
  putRemote,
  type ListedObject,
  type PutOptions,
  type StorageProvider,
  type StoredObject,
  StorageNotFoundError,
  storageKeyPattern,
} from './storage.js';

export interface AzureSettings {
  accountName: string;
  accountKey: string;
  container: string;
  /** The blob service's address (Azurite, a sovereign cloud); `https://<account>.blob.core.windows.net` when absent. */
  endpoint?: string | undefined;
}

const azure = lazyPackage<typeof AzureBlobs>('@azure/storage-blob');

/** Blocks of 8 MiB, four in flight: at most 32 MiB of a file in memory per upload. */
const BLOCK_SIZE = 8 * 1024 * 1024;
const CONCURRENCY = 4;

/**
 * Azure Blob storage through the Azure SDK. A put stages the file as blocks of a block blob:
 * staged blocks are the temporary object, invisible until `Put Block List` commits them, so a
 * reader never sees half a file. A put that fails discards its staged blocks (an empty commit
 * and a delete); blocks a dead process left are discarded the same way by
 * `removeAbandonedUploads` (Azure itself drops uncommitted blocks after a week).
 */
export class AzureStorage implements StorageProvider {
  private readonly container: ContainerClient;
  private readonly writing = new Set<string>();
  readonly location: string;

  constructor(settings: AzureSettings) {
    const endpoint = (settings.endpoint ?? `https://${settings.accountName}.blob.core.windows.net`).replace(/\/+$/, '');
    const service = new (azure().BlobServiceClient)(
      endpoint,
      new (azure().StorageSharedKeyCredential)(settings.accountName, settings.accountKey),
      {
        retryOptions: { maxTries: 2 },
      },
    );
    this.container = service.getContainerClient(settings.container);
    this.location = `azure://${endpoint}/${settings.container}`;
  }

  put(source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    return this.putAs(newStorageKey(), source, options);
  }

  async putAs(key: string, source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    const blob = this.blob(key);
    return putRemote(source, options, {
      key,
      name: blob.name,
      writing: this.writing,
      bufferBytes: BLOCK_SIZE,
      upload: (body) => blob.uploadStream(body, BLOCK_SIZE, CONCURRENCY),
      undo: () => discard(blob),
    });
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const answer = range
        ? await this.blob(key).download(range.start, range.end - range.start + 1)
        : await this.blob(key).download();
      return answer.readableStreamBody as Readable;
    } catch (error) {
      if (isMissing(error)) throw new StorageNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.blob(key).deleteIfExists();
  }

  async exists(key: string): Promise<boolean> {
    return this.blob(key).exists();
  }

  async *list(): AsyncIterable<ListedObject> {
    for await (const item of this.container.listBlobsFlat({ prefix: OBJECT_PREFIX })) {
      const key = item.name.slice(OBJECT_PREFIX.length);
      if (storageKeyPattern.test(key)) yield { key, storedAt: item.properties.lastModified };
    }
  }

  /**
   * Discards the staged blocks of blobs under `objects/` that were never committed, no put of this
   * process writes, and that last changed before `olderThan`.
   */
  async removeAbandonedUploads(olderThan: Date): Promise<number> {
    const committed = new Set<string>();
    for await (const item of this.container.listBlobsFlat({ prefix: OBJECT_PREFIX })) committed.add(item.name);
    let removed = 0;
    for await (const item of this.container.listBlobsFlat({ prefix: OBJECT_PREFIX, includeUncommitedBlobs: true })) {
      if (committed.has(item.name) || this.writing.has(item.name)) continue;
      if (item.properties.lastModified >= olderThan) continue;
      await discard(this.container.getBlockBlobClient(item.name));
      removed += 1;
    }
    return removed;
  }

  private blob(key: string): BlockBlobClient {
    return this.container.getBlockBlobClient(objectName(key));
  }
}

/** Drops a blob's uncommitted blocks: committing an empty list replaces them, then the blob goes. */
async function discard(blob: BlockBlobClient): Promise<void> {
  if (!(await blob.exists())) await blob.commitBlockList([]);
  await blob.deleteIfExists();
}

function isMissing(error: unknown): boolean {
  return error instanceof azure().RestError && error.statusCode === 404;
}
