import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  abandonedBefore,
  type AbandonedUploadRule,
  DigestCounter,
  newStorageKey,
  type ListedObject,
  type PutOptions,
  type StoredObject,
  StorageNotFoundError,
  storageKeyPattern,
  type StorageProvider,
} from './storage.js';

/**
 * Local-disk storage under one directory: objects at `<root>/<k[0..2]>/<key>`, in-flight uploads
 * at `<root>/tmp/<random>.part`. A put writes the temporary file, fsyncs it, renames it into place
 * and fsyncs the directory, so an object either exists completely or not at all.
 */
export class LocalStorage implements StorageProvider {
  private readonly tmpDir: string;
  /** Temporary files of the puts running in this process: the sweeper leaves them alone. */
  private readonly writing = new Set<string>();

  private constructor(private readonly root: string) {
    this.tmpDir = path.join(root, 'tmp');
  }

  get location(): string {
    return `file://${this.root}`;
  }

  static async open(root: string): Promise<LocalStorage> {
    const storage = new LocalStorage(path.resolve(root));
    await fsp.mkdir(storage.tmpDir, { recursive: true, mode: 0o700 });
    return storage;
  }

  put(source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    return this.putAs(newStorageKey(), source, options);
  }

  async putAs(key: string, source: Readable, options: PutOptions = {}): Promise<StoredObject> {
    const target = this.pathOf(key);
    const temporary = path.join(this.tmpDir, `${newStorageKey()}.part`);
    const counter = new DigestCounter(options.maxBytes, options.digest !== false);
    this.writing.add(temporary);
    const sink = fs.createWriteStream(temporary, { flags: 'wx', mode: 0o600, flush: true });
    try {
      await pipeline(source, counter, sink);
      await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await fsp.rename(temporary, target);
      await syncDirectory(path.dirname(target));
    } catch (error) {
      source.destroy();
      // the file is opened asynchronously: removing it before the stream has closed could race
      // its creation and leave it behind
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await fsp.rm(temporary, { force: true });
      throw error;
    } finally {
      this.writing.delete(temporary);
    }
    return { key, size: counter.size, sha256: counter.sha256() };
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const file = this.pathOf(key);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFoundError(key);
      throw error;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fsp.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async *list(): AsyncIterable<ListedObject> {
    for (const prefix of await fsp.readdir(this.root, { withFileTypes: true })) {
      if (!prefix.isDirectory() || !/^[a-f0-9]{2}$/.test(prefix.name)) continue;
      for (const entry of await fsp.readdir(path.join(this.root, prefix.name), { withFileTypes: true })) {
        if (!entry.isFile() || !storageKeyPattern.test(entry.name) || !entry.name.startsWith(prefix.name)) continue;
        const storedAt = await modifiedAt(path.join(this.root, prefix.name, entry.name));
        if (storedAt) yield { key: entry.name, storedAt };
      }
    }
  }

  /** Temporary files are written as each chunk arrives while a put runs: an old one belongs to no live put. */
  async removeAbandonedUploads(rule: AbandonedUploadRule): Promise<number> {
    const olderThan = abandonedBefore(rule, 0);
    let removed = 0;
    for (const name of await fsp.readdir(this.tmpDir)) {
      const file = path.join(this.tmpDir, name);
      if (this.writing.has(file)) continue;
      const changed = await modifiedAt(file);
      if (!changed || changed >= olderThan) continue;
      await fsp.rm(file, { force: true, recursive: true });
      removed += 1;
    }
    return removed;
  }

  /** The only place a key becomes a path: anything but 32 hex characters is refused. */
  private pathOf(key: string): string {
    if (!storageKeyPattern.test(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
    return path.join(this.root, key.slice(0, 2), key);
  }
}

/** When a file last changed; undefined when it is gone (removed meanwhile). */
async function modifiedAt(file: string): Promise<Date | undefined> {
  try {
    return (await fsp.stat(file)).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await fsp.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
