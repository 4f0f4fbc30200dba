import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { Upload } from '@aws-sdk/lib-storage';
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

export interface S3Settings {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** An S3-compatible service's address (MinIO, Ceph, an emulator); AWS itself when absent. */
  endpoint?: string | undefined;
  /** `bucket` in the path instead of the host name (most S3-compatible services need it). */
  forcePathStyle?: boolean | undefined;
}

const s3 = lazyPackage<typeof S3>('@aws-sdk/client-s3');
const libStorage = lazyPackage<typeof LibStorage>('@aws-sdk/lib-storage');

/** Parts of 8 MiB, four in flight: at most 32 MiB of a file in memory per upload. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;

/**
 * S3 (or any S3-compatible service) through the AWS SDK. A put streams the file as a multipart
 * upload (`@aws-sdk/lib-storage`): the parts are the temporary object, invisible until
 * `CompleteMultipartUpload` commits them under the key, so a reader never sees half a file.
 * A put that fails aborts its multipart upload; uploads a dead process left are aborted by
 * `removeAbandonedUploads` (a bucket lifecycle rule `AbortIncompleteMultipartUpload` does the
 * same on AWS).
 */
export class S3Storage implements StorageProvider {
  private readonly client: S3Client;
  private readonly bucket: string;
  /** Multipart uploads of the puts running in this process, by object name. */
  private readonly writing = new Set<string>();
  readonly location: string;

  constructor(settings: S3Settings) {
    this.client = new (s3().S3Client)({
      region: settings.region,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle ?? Boolean(settings.endpoint),
      maxAttempts: 2,
    });
    this.bucket = settings.bucket;
    this.location = `s3://${settings.endpoint ?? `aws:${settings.region}`}/${settings.bucket}`;
  }

  put(source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    return this.putAs(newStorageKey(), source, options);
  }

  async putAs(key: string, source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    const name = objectName(key);
    let upload: Upload | undefined;
    return putRemote(source, options, {
      key,
      name,
      writing: this.writing,
      bufferBytes: PART_SIZE,
      upload: (body) => {
        upload = new (libStorage().Upload)({
          client: this.client,
          params: { Bucket: this.bucket, Key: name, Body: body },
          partSize: PART_SIZE,
          queueSize: QUEUE_SIZE,
          leavePartsOnError: false,
        });
        return upload.done();
      },
      undo: async () => {
        await upload?.abort().catch(() => undefined);
        // a single-request upload may have completed before the error surfaced: remove it
        await this.delete(key);
      },
    });
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new (s3().GetObjectCommand)({
          Bucket: this.bucket,
          Key: objectName(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new StorageNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new (s3().DeleteObjectCommand)({ Bucket: this.bucket, Key: objectName(key) }));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new (s3().HeadObjectCommand)({ Bucket: this.bucket, Key: objectName(key) }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async *list(): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new (s3().ListObjectsV2Command)({ Bucket: this.bucket, Prefix: OBJECT_PREFIX, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(OBJECT_PREFIX.length) ?? '';
        if (storageKeyPattern.test(key)) yield { key, storedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Aborts multipart uploads under `objects/` that no put of this process runs and whose last
   * part (or start, without parts) is older than `rule` allows for parts of {@link PART_SIZE}
   * (a put in another process sends one only every 8 MiB). A service without
   * `ListMultipartUploads` (some emulators) has none to abort.
   */
  async removeAbandonedUploads(rule: AbandonedUploadRule): Promise<number> {
    const olderThan = abandonedBefore(rule, PART_SIZE);
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      let page;
      try {
        page = await this.client.send(
          new (s3().ListMultipartUploadsCommand)({
            Bucket: this.bucket,
            Prefix: OBJECT_PREFIX,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (error) {
        if (error instanceof s3().S3ServiceException && error.name === 'NotImplemented') return removed;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || this.writing.has(upload.Key)) continue;
        if (!upload.Initiated || upload.Initiated >= olderThan) continue;
        if ((await this.lastPartAt(upload.Key, upload.UploadId)) >= olderThan) continue;
        await this.client.send(
          new (s3().AbortMultipartUploadCommand)({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }),
        );
        removed += 1;
      }
      if (!page.IsTruncated) return removed;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  private async lastPartAt(name: string, uploadId: string): Promise<Date> {
    let last = new Date(0);
    let marker: string | undefined;
    do {
      const page = await this.client.send(
        new (s3().ListPartsCommand)({ Bucket: this.bucket, Key: name, UploadId: uploadId, PartNumberMarker: marker }),
      );
      for (const part of page.Parts ?? []) if (part.LastModified && part.LastModified > last) last = part.LastModified;
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    return last;
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof s3().S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}
