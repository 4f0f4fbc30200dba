import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where file contents live. Objects are immutable: `put` writes a new object under a key the
 * storage generates and answers it only once the bytes are durable (local disk: written to a
 * temporary name, fsynced, renamed); a failed or interrupted `put` leaves nothing. Keys never
 * come from requests. Providers: local disk, S3 and Azure Blob ({@link StorageProvider}); the server's
 * `ProviderStorage` routes to the one selected.
 */
export interface Storage {
  /**
   * Stores the stream as a new object. Rejects (and stores nothing) when the stream errors or
   * exceeds `maxBytes` ({@link StorageLimitError}).
   */
  put(source: Readable, options?: PutOptions): Promise<StoredObject>;
  /** Reads an object, or a byte range of it (`end` inclusive). Rejects with {@link StorageNotFoundError}. */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Removes an object; absent objects are not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Every object with the time it was stored, in no particular order (for the storage sweeper). */
  list(): AsyncIterable<ListedObject>;
  /**
   * Removes what puts that never finished (the process died) left behind, as `rule` says
   * ({@link abandonedBefore}); never the data of a put still running in this process. Answers how
   * many were removed.
   */
  removeAbandonedUploads(rule: AbandonedUploadRule): Promise<number>;
}

/** When the storage sweep takes what a put wrote for abandoned: see {@link abandonedBefore}. */
export interface AbandonedUploadRule {
  now: Date;
  /** `STORAGE_TEMP_GRACE_SECONDS` (raised to the request timeout when the upload rate check is off). */
  graceSeconds: number;
  /** The slowest an upload may send and go on (`UPLOAD_MIN_BYTES_PER_SECOND`); 0: no such check. */
  minBytesPerSecond: number;
}

/**
 * Before when a put's last visible write must be for the put to count as abandoned. A live put,
 * in any process, writes at least every `bufferBytes / minBytesPerSecond` seconds: a provider that
 * sends `bufferBytes` at a time (a remote part or block of 8 MiB: 512 s at 16 KiB/s) shows no
 * write while it fills its buffer; local disk writes each chunk as it arrives (`bufferBytes` 0).
 * The grace comes on top.
 */
export function abandonedBefore(rule: AbandonedUploadRule, bufferBytes: number): Date {
  const fillSeconds = rule.minBytesPerSecond > 0 ? bufferBytes / rule.minBytesPerSecond : 0;
  return new Date(rule.now.getTime() - (rule.graceSeconds + fillSeconds) * 1000);
}

/**
 * One place objects can live (local disk, S3, Azure Blob). Beside {@link Storage} it can write
 * under a key it is given, so a move between providers keeps every key the database refers to.
 */
export interface StorageProvider extends Storage {
  /** Stores the stream under `key` (a {@link storageKeyPattern} key), with the guarantees of `put`. */
  putAs(key: string, source: Readable, options?: PutOptions): Promise<StoredObject>;
  /** Where the objects are (a directory, an endpoint and bucket): two providers with one location share objects. */
  readonly location: string;
}

export interface ListedObject {
  key: string;
  storedAt: Date;
}

export interface PutOptions {
  /** Refuse (and store nothing) past this many bytes. */
  maxBytes?: number;
  /**
   * `false`: the caller has no use for the SHA-256 of the bytes stored (they are ciphertext it
   * hashed as plaintext already), so none is computed and `sha256` is ''. Default true.
   */
  digest?: boolean;
}

export interface StoredObject {
  key: string;
  /** Bytes stored. */
  size: number;
  /** SHA-256 (hex) of the bytes stored; '' when the put asked for none (`digest: false`). */
  sha256: string;
}

export class StorageLimitError extends Error {
  override readonly name = 'StorageLimitError';
  constructor(readonly maxBytes: number) {
    super(`The content exceeds ${maxBytes} bytes`);
  }
}

export class StorageNotFoundError extends Error {
  override readonly name = 'StorageNotFoundError';
  constructor(key: string) {
    super(`No stored object ${key}`);
  }
}

/** Keys are 32 lower-case hex characters: safe as file names and object names everywhere. */
export const storageKeyPattern = /^[a-f0-9]{32}$/;

export function newStorageKey(): string {
  return randomBytes(16).toString('hex');
}

/**
 * A pass-through that counts and hashes what flows through it and fails once more than
 * `maxBytes` passed. Read `size` and `sha256()` after the stream finished.
 */
export class DigestCounter extends Transform {
  size = 0;
  private readonly hash: ReturnType<typeof createHash> | undefined;
  private digest: string | undefined;

  /** `hashing` false: counts only, and `sha256()` answers ''. */
  constructor(
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    hashing = true,
  ) {
    super();
    this.hash = hashing ? createHash('sha256') : undefined;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(new StorageLimitError(this.maxBytes));
    this.hash?.update(chunk);
    callback(null, chunk);
  }

  sha256(): string {
    this.digest ??= this.hash?.digest('hex') ?? '';
    return this.digest;
  }
}

/**
 * Streams `source` through `counter` into an SDK upload that reads `body` (buffering at most
 * `bufferBytes` between them). Rejects when either side fails: a failing upload stops reading, so
 * it also fails the body (or the feeding would wait forever); a failing source fails the upload.
 */
export async function feedUpload(
  source: Readable,
  counter: DigestCounter,
  bufferBytes: number,
  upload: (body: Readable) => Promise<unknown>,
): Promise<void> {
  const body = new PassThrough({ highWaterMark: bufferBytes });
  const uploading = upload(body).catch((error: unknown) => {
    body.destroy(error as Error);
    throw error;
  });
  const [fed, uploaded] = await Promise.allSettled([pipeline(source, counter, body), uploading]);
  if (fed.status === 'rejected') throw fed.reason;
  if (uploaded.status === 'rejected') throw uploaded.reason;
}

/** The remote providers' objects live at `objects/<key>`; nothing else of a bucket or container is read or written. */
export const OBJECT_PREFIX = 'objects/';

/** The only place a key becomes a remote object's name: anything but 32 hex characters is refused. */
export function objectName(key: string): string {
  if (!storageKeyPattern.test(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  return OBJECT_PREFIX + key;
}

/**
 * A remote provider's put of `key` as the object `name`: `source`, counted and hashed as
 * `options` say, streams into `upload` (see {@link feedUpload}) while `writing` holds the name, so
 * that cleaning abandoned uploads passes it over. A put that fails destroys `source` and runs
 * `undo` (whose own failure is ignored) before it rejects.
 */
export async function putRemote(
  source: Readable,
  options: PutOptions,
  put: {
    key: string;
    name: string;
    writing: Set<string>;
    bufferBytes: number;
    upload: (body: Readable) => Promise<unknown>;
    undo: () => Promise<unknown>;
  },
): Promise<StoredObject> {
  const counter = new DigestCounter(options.maxBytes, options.digest !== false);
  put.writing.add(put.name);
  try {
    await feedUpload(source, counter, put.bufferBytes, put.upload);
  } catch (error) {
    source.destroy();
    await put.undo().catch(() => undefined);
    throw error;
  } finally {
    put.writing.delete(put.name);
  }
  return { key: put.key, size: counter.size, sha256: counter.sha256() };
}
