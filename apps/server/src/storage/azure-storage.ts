import type { Readable } from 'node:stream';
import type * as AzureBlobs from '@azure/storage-blob';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { lazyPackage } from '../lib/lazy-package.js';
import {
  abandonedBefore,
  type AbandonedUploadRule,
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
 * `removeAbandonedUploads` (Azure itself drops uncommitted blocks after a week). Each block's id
 * says when it was staged ({@link stageBlocks}): that is how another process's sweep tells a live
 * put from a dead one.
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
      upload: (body) => stageBlocks(blob, body),
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
   * process writes, and whose last block was staged before `rule` allows for blocks of
   * {@link BLOCK_SIZE} (a put in another process stages one only every 8 MiB). A blob's
   * last-modified time does not tell: Azure keeps that of its first staged block.
   */
  async removeAbandonedUploads(rule: AbandonedUploadRule): Promise<number> {
    const olderThan = abandonedBefore(rule, BLOCK_SIZE);
    const committed = new Set<string>();
    for await (const item of this.container.listBlobsFlat({ prefix: OBJECT_PREFIX })) committed.add(item.name);
    let removed = 0;
    for await (const item of this.container.listBlobsFlat({ prefix: OBJECT_PREFIX, includeUncommitedBlobs: true })) {
      if (committed.has(item.name) || this.writing.has(item.name)) continue;
      const blob = this.container.getBlockBlobClient(item.name);
      const last = await lastStagedAt(blob, item.properties.lastModified);
      if (!last || last >= olderThan) continue;
      await discard(blob);
      removed += 1;
    }
    return removed;
  }

  private blob(key: string): BlockBlobClient {
    return this.container.getBlockBlobClient(objectName(key));
  }
}

/**
 * A block id: the block's place and when it was staged (`000042:001764480000000`, milliseconds),
 * base64 as Azure wants, of one length for every block of a blob as Azure requires.
 */
function blockId(sequence: number, stagedAt: number): string {
  return Buffer.from(`${String(sequence).padStart(6, '0')}:${String(stagedAt).padStart(15, '0')}`).toString('base64');
}

/** When a block whose id {@link blockId} made was staged; undefined for any other id. */
function stagedAtOf(id: string): number | undefined {
  const match = /^\d{6}:(\d{15})$/.exec(Buffer.from(id, 'base64').toString('latin1'));
  return match ? Number(match[1]) : undefined;
}

/**
 * When the newest uncommitted block of `blob` was staged, from the block ids; `fallback` (the
 * blob's last-modified time) when none says (staged by another program); undefined when the blob
 * went meanwhile.
 */
async function lastStagedAt(blob: BlockBlobClient, fallback: Date): Promise<Date | undefined> {
  let blocks;
  try {
    blocks = (await blob.getBlockList('uncommitted')).uncommittedBlocks ?? [];
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const times = blocks.map((block) => stagedAtOf(block.name)).filter((at) => at !== undefined);
  return times.length > 0 ? new Date(Math.max(...times)) : fallback;
}

/** `body` cut into blocks of `size` bytes (the last one shorter). */
async function* blocksOf(body: Readable, size: number): AsyncIterable<Buffer> {
  let parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let rest = chunk;
    while (length + rest.length >= size) {
      parts.push(rest.subarray(0, size - length));
      rest = rest.subarray(size - length);
      yield Buffer.concat(parts, size);
      parts = [];
      length = 0;
    }
    if (rest.length > 0) {
      parts.push(rest);
      length += rest.length;
    }
  }
  if (length > 0) yield Buffer.concat(parts, length);
}

/**
 * Stages `body` as blocks of {@link BLOCK_SIZE}, at most {@link CONCURRENCY} in flight, each with
 * an id that says when it was staged ({@link blockId}), then commits them in order (no block: an
 * empty blob). A block that fails fails the body with its error and the put; a body that fails
 * (the client went away) fails the put once the blocks in flight have landed.
 */
async function stageBlocks(blob: BlockBlobClient, body: Readable): Promise<void> {
  const ids: string[] = [];
  const staging = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  try {
    for await (const block of blocksOf(body, BLOCK_SIZE)) {
      const id = blockId(ids.length, Date.now());
      ids.push(id);
      const staged: Promise<void> = blob
        .stageBlock(id, block, block.length)
        .then(
          () => undefined,
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(() => staging.delete(staged));
      staging.add(staged);
      while (staging.size >= CONCURRENCY) await Promise.race(staging);
      if (failure) {
        body.destroy(failure.error as Error);
        throw failure.error;
      }
    }
  } finally {
    // the put's undo discards what was staged: no block may land after it
    await Promise.all(staging);
  }
  if (failure) throw failure.error;
  await blob.commitBlockList(ids);
}

/** Drops a blob's uncommitted blocks: committing an empty list replaces them, then the blob goes. */
async function discard(blob: BlockBlobClient): Promise<void> {
  if (!(await blob.exists())) await blob.commitBlockList([]);
  await blob.deleteIfExists();
}

function isMissing(error: unknown): boolean {
  return error instanceof azure().RestError && error.statusCode === 404;
}
