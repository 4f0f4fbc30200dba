import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@manifold/machine-simulator';
import { AppError } from '../src/lib/app-error.js';
import { AzureStorage } from '../src/storage/azure-storage.js';
import { LocalStorage } from '../src/storage/local-storage.js';
import { countObjects, moveObjects } from '../src/storage/move-objects.js';
import { probeProvider } from '../src/storage/provider-storage.js';
import { S3Storage } from '../src/storage/s3-storage.js';
import { StorageLimitError, StorageNotFoundError, type StorageProvider, newStorageKey } from '../src/storage/storage.js';
import { startStorageEmulators, type StorageEmulators } from './helpers/storage-emulators.js';

/** A deterministic stream of `size` bytes in chunks of 64 KiB, and its SHA-256. */
function generated(size: number, seed = 7): { stream: () => Readable; sha256: string } {
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i += 1) chunk[i] = (i * 31 + seed) & 0xff;
  const hash = createHash('sha256');
  for (let left = size; left > 0; left -= chunk.length) hash.update(chunk.subarray(0, Math.min(chunk.length, left)));
  return {
    sha256: hash.digest('hex'),
    stream: () =>
      Readable.from(
        (function* () {
          for (let left = size; left > 0; left -= chunk.length) yield chunk.subarray(0, Math.min(chunk.length, left));
        })(),
      ),
  };
}

/** A stream that yields `bytes` then fails, like a client that went away mid-upload. */
function interrupted(bytes: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 1);
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
      throw new Error('client went away');
    })(),
  );
}

async function keys(provider: StorageProvider): Promise<string[]> {
  const found: string[] = [];
  for await (const object of provider.list()) found.push(object.key);
  return found.sort();
}

let emulators: StorageEmulators;
let localRoot: string;
const providers: Record<string, StorageProvider> = {};

beforeAll(async () => {
  emulators = await startStorageEmulators();
  localRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-local-'));
  providers.local = await LocalStorage.open(localRoot);
  providers.s3 = new S3Storage(emulators.s3);
  providers.azure = new AzureStorage(emulators.azure);
});

afterAll(async () => {
  await emulators?.stop();
  if (localRoot) await fs.rm(localRoot, { recursive: true, force: true });
});

describe.each(['local', 's3', 'azure'])('storage provider contract [%s]', (name) => {
  const provider = () => providers[name]!;

  it('streams a multi-part file up and down and reports its SHA-256 and size', async () => {
    const size = 20 * 1024 * 1024 + 123;
    const file = generated(size);
    const stored = await provider().put(file.stream());
    expect(stored.size).toBe(size);
    expect(stored.sha256).toBe(file.sha256);
    const back = createHash('sha256');
    let length = 0;
    for await (const chunk of await provider().get(stored.key)) {
      back.update(chunk as Buffer);
      length += (chunk as Buffer).length;
    }
    expect(length).toBe(size);
    expect(back.digest('hex')).toBe(file.sha256);
    const range = await buffer(await provider().get(stored.key, { start: 10, end: 19 }));
    const whole = await buffer(file.stream());
    expect(range.equals(whole.subarray(10, 20))).toBe(true);
    expect(await provider().exists(stored.key)).toBe(true);
    await provider().delete(stored.key);
    expect(await provider().exists(stored.key)).toBe(false);
  });

  it('answers StorageNotFoundError for an absent object and ignores deleting one', async () => {
    const key = newStorageKey();
    await expect(provider().get(key)).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(provider().delete(key)).resolves.toBeUndefined();
  });

  it('refuses keys that are not storage keys', async () => {
    await expect(provider().get('../etc/passwd')).rejects.toThrow(/invalid storage key/);
    await expect(provider().putAs('a/b', Readable.from([Buffer.from('x')]))).rejects.toThrow(/invalid storage key/);
  });

  it('leaves nothing behind when the upload is interrupted', async () => {
    const before = await keys(provider());
    await expect(provider().put(interrupted(12 * 1024 * 1024))).rejects.toThrow('client went away');
    await expect(provider().put(generated(10 * 1024 * 1024).stream(), { maxBytes: 1024 * 1024 })).rejects.toBeInstanceOf(
      StorageLimitError,
    );
    await expect(provider().put(interrupted(1000))).rejects.toThrow('client went away');
    expect(await keys(provider())).toEqual(before);
    expect(
      await provider().removeAbandonedUploads({ now: new Date(Date.now() + 60_000), graceSeconds: 0, minBytesPerSecond: 0 }),
    ).toBe(0);
  });

  it('stores an empty file', async () => {
    const stored = await provider().put(Readable.from([]));
    expect(stored).toEqual({ key: stored.key, size: 0, sha256: createHash('sha256').digest('hex') });
    expect((await buffer(await provider().get(stored.key))).length).toBe(0);
    await provider().delete(stored.key);
  });

  it('stores under a given key (what a move needs)', async () => {
    const key = newStorageKey();
    const stored = await provider().putAs(key, Readable.from([Buffer.from('hello')]));
    expect(stored).toEqual({ key, size: 5, sha256: createHash('sha256').update('hello').digest('hex') });
    expect((await buffer(await provider().get(key))).toString()).toBe('hello');
    expect(await keys(provider())).toContain(key);
    await provider().delete(key);
  });

  it('passes the probe (write, read, delete) and leaves no probe object', async () => {
    const before = await keys(provider());
    await probeProvider(provider());
    expect(await keys(provider())).toEqual(before);
  });
});

describe('storage provider probe', () => {
  // s3rver checks access key ids but not SigV4 signatures: a wrong secret passes there
  it('refuses bad S3 credentials (an unknown access key id) with storageProviderConfigurationNotValid', async () => {
    const bad = new S3Storage({ ...emulators.s3, accessKeyId: 'NOT-A-KEY' });
    await expect(probeProvider(bad)).rejects.toMatchObject({ token: 'storageProviderConfigurationNotValid' });
  });

  it('refuses bad Azure credentials with storageProviderConfigurationNotValid', async () => {
    const bad = new AzureStorage({ ...emulators.azure, accountKey: Buffer.alloc(64, 3).toString('base64') });
    await expect(probeProvider(bad)).rejects.toMatchObject({ token: 'storageProviderConfigurationNotValid' });
  });

  it('refuses a missing bucket or container with storageProviderConfigurationNotValid', async () => {
    await expect(probeProvider(new S3Storage({ ...emulators.s3, bucket: 'no-such-bucket' }))).rejects.toMatchObject({
      token: 'storageProviderConfigurationNotValid',
    });
    await expect(probeProvider(new AzureStorage({ ...emulators.azure, container: 'no-such-container' }))).rejects.toMatchObject({
      token: 'storageProviderConfigurationNotValid',
    });
  });

  it('answers storageProviderNotAvailable when nothing listens', async () => {
    const closed = 'http://127.0.0.1:9';
    const error = await probeProvider(new S3Storage({ ...emulators.s3, endpoint: closed })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).token).toBe('storageProviderNotAvailable');
    await expect(
      probeProvider(new AzureStorage({ ...emulators.azure, endpoint: `${closed}/devstoreaccount1` })),
    ).rejects.toMatchObject({ token: 'storageProviderNotAvailable' });
  });
});

// s3rver has no ListMultipartUploads (the S3 provider then has no upload to abort): Azure and local disk here
describe('a live upload seen by another server process sweeping abandoned uploads', () => {
  const MiB = 1024 * 1024;
  const rule = { graceSeconds: 120, minBytesPerSecond: 16 * 1024 };

  it('[azure] keeps the blocks of a put that stages one every few minutes, by its last block, not its first', async () => {
    const writer = new AzureStorage(emulators.azure);
    const sweeper = new AzureStorage(emulators.azure); // another process: its own puts only
    const container = new BlobServiceClient(
      emulators.azure.endpoint!,
      new StorageSharedKeyCredential(emulators.azure.accountName, emulators.azure.accountKey),
    ).getContainerClient(emulators.azure.container);
    const stagedBlocks = async () => {
      let count = 0;
      for await (const item of container.listBlobsFlat({ prefix: 'objects/', includeUncommitedBlobs: true })) {
        const list = await container.getBlockBlobClient(item.name).getBlockList('uncommitted');
        count += list.uncommittedBlocks?.length ?? 0;
      }
      return count;
    };
    const source = new PassThrough();
    const hash = createHash('sha256');
    const send = (mebibytes: number) => {
      for (let i = 0; i < mebibytes; i += 1) {
        const bytes = randomBytes(MiB);
        hash.update(bytes);
        source.write(bytes);
      }
    };
    const put = writer.put(source);
    send(9); // the first 8 MiB block is staged, 1 MiB waits for the next
    await until('one staged block', async () => ((await stagedBlocks()) === 1 ? true : undefined));
    const firstStaged = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const secondSent = Date.now();
    send(8); // the second block, two seconds after the first
    await until('two staged blocks', async () => ((await stagedBlocks()) === 2 ? true : undefined));
    // as another process sweeps when the first block is older than grace + 8 MiB at 16 KiB/s and the second is not
    const cutoff = (firstStaged + secondSent) / 2;
    const now = new Date(cutoff + (rule.graceSeconds + (8 * MiB) / rule.minBytesPerSecond) * 1000);
    expect(await sweeper.removeAbandonedUploads({ ...rule, now })).toBe(0);
    expect(await stagedBlocks()).toBe(2);
    // the writer's own sweep never takes it; once every block is old, another process's does
    expect(await writer.removeAbandonedUploads({ ...rule, now: new Date(now.getTime() + 3600_000) })).toBe(0);
    source.end();
    const stored = await put;
    expect(stored).toMatchObject({ size: 17 * MiB, sha256: hash.digest('hex') });
    const back = createHash('sha256');
    for await (const part of await writer.get(stored.key)) back.update(part as Buffer);
    expect(back.digest('hex')).toBe(stored.sha256);
    await writer.delete(stored.key);

    // a put whose process died: its blocks go once the last is older than the rule allows
    const dead = new PassThrough();
    const deadPut = new AzureStorage(emulators.azure).put(dead);
    dead.write(Buffer.alloc(9 * MiB, 1));
    await until('one staged block', async () => ((await stagedBlocks()) === 1 ? true : undefined));
    const later = new Date(Date.now() + (rule.graceSeconds + 512 + 5) * 1000);
    expect(await sweeper.removeAbandonedUploads({ ...rule, now: later })).toBe(1);
    expect(await stagedBlocks()).toBe(0);
    dead.destroy(new Error('client went away'));
    await expect(deadPut).rejects.toThrow();
  });

  it('[local] keeps a temporary file written within the grace, removes one unchanged past it', async () => {
    const local = providers.local! as LocalStorage;
    const tmp = path.join(localRoot, 'tmp');
    const stale = path.join(tmp, 'dead.part');
    await fs.writeFile(stale, 'x');
    const old = new Date(Date.now() - 121_000);
    await fs.utimes(stale, old, old);
    await fs.writeFile(path.join(tmp, 'live.part'), 'x');
    expect(await local.removeAbandonedUploads({ ...rule, now: new Date() })).toBe(1);
    expect(await fs.readdir(tmp)).toEqual(['live.part']);
    await fs.rm(path.join(tmp, 'live.part'));
  });
});

describe('moving objects between providers', () => {
  it.each([
    ['local', 's3'],
    ['s3', 'azure'],
    ['azure', 'local'],
  ])('moves every object from %s to %s under the same key, bytes intact', async (fromName, toName) => {
    const from = providers[fromName]!;
    const to = providers[toName]!;
    const files = [generated(3 * 1024 * 1024, 1), generated(10, 2), generated(9 * 1024 * 1024, 3)];
    const stored = await Promise.all(files.map((file) => from.put(file.stream())));
    // one already copied by an interrupted earlier pass
    await to.putAs(stored[1]!.key, files[1]!.stream());
    expect(await countObjects(from)).toBe(3);
    const seen: number[] = [];
    const result = await moveObjects(from, to, { progress: (p) => void seen.push(p.moved) });
    expect(result).toEqual({ moved: 3, failed: 0, lastError: undefined });
    expect(seen).toEqual([1, 2, 3]);
    expect(await keys(from)).toEqual([]);
    for (const [index, object] of stored.entries()) {
      const hash = createHash('sha256');
      for await (const chunk of await to.get(object.key)) hash.update(chunk as Buffer);
      expect(hash.digest('hex')).toBe(files[index]!.sha256);
      await to.delete(object.key);
    }
  });
});
