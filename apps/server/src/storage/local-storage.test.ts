import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalStorage } from './local-storage.js';
import { StorageLimitError, StorageNotFoundError } from './storage.js';

/** The folders the tests made, removed when they end (pass or fail). */
const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => fs.rm(dir, { recursive: true, force: true }))));

async function storageDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-storage-'));
  made.push(dir);
  return dir;
}

describe('LocalStorage', () => {
  it('stores a stream under a generated key with its size and SHA-256, and reads it whole or in part', async () => {
    const root = await storageDir();
    const storage = await LocalStorage.open(root);
    const content = randomBytes(300_000);
    const stored = await storage.put(Readable.from([content.subarray(0, 1000), content.subarray(1000)]));
    expect(stored).toEqual({
      key: expect.stringMatching(/^[a-f0-9]{32}$/),
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
    });
    expect((await buffer(await storage.get(stored.key))).equals(content)).toBe(true);
    expect((await buffer(await storage.get(stored.key, { start: 10, end: 19 }))).equals(content.subarray(10, 20))).toBe(true);
    expect(await storage.exists(stored.key)).toBe(true);
    await storage.delete(stored.key);
    expect(await storage.exists(stored.key)).toBe(false);
    await expect(storage.get(stored.key)).rejects.toBeInstanceOf(StorageNotFoundError);
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);
  });

  it('leaves nothing when the stream fails or exceeds the limit', async () => {
    const root = await storageDir();
    const storage = await LocalStorage.open(root);
    const failing = new Readable({
      read() {
        this.push(randomBytes(1000));
        this.destroy(new Error('cut off'));
      },
    });
    await expect(storage.put(failing)).rejects.toThrow('cut off');
    await expect(storage.put(Readable.from([randomBytes(2000)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(StorageLimitError);
    const files = (await fs.readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(files).toEqual([]);
  });

  it('never turns anything but a generated key into a path', async () => {
    const storage = await LocalStorage.open(await storageDir());
    await expect(storage.get('../../etc/passwd')).rejects.toThrow('invalid storage key');
    await expect(storage.delete('..')).rejects.toThrow('invalid storage key');
  });

  it('lists its objects with the time each was stored', async () => {
    const storage = await LocalStorage.open(await storageDir());
    const first = await storage.put(Readable.from([randomBytes(10)]));
    const second = await storage.put(Readable.from([randomBytes(10)]));
    const listed = [];
    for await (const object of storage.list()) listed.push(object);
    expect(listed.map((object) => object.key).sort()).toEqual([first.key, second.key].sort());
    for (const object of listed) expect(Date.now() - object.storedAt.getTime()).toBeLessThan(60_000);
  });

  it('removes old temporary files of abandoned puts, never a young one or one a put is writing', async () => {
    const root = await storageDir();
    const storage = await LocalStorage.open(root);
    const tmp = path.join(root, 'tmp');
    const old = new Date(Date.now() - 7200_000);
    await fs.writeFile(path.join(tmp, 'abandoned.part'), 'x');
    await fs.utimes(path.join(tmp, 'abandoned.part'), old, old);
    await fs.writeFile(path.join(tmp, 'young.part'), 'x');
    const source = new PassThrough();
    source.write(randomBytes(10));
    const put = storage.put(source);
    let writing: string | undefined;
    while (!writing) {
      writing = (await fs.readdir(tmp)).find((name) => !['abandoned.part', 'young.part'].includes(name));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await fs.utimes(path.join(tmp, writing), old, old);

    expect(await storage.removeAbandonedUploads({ now: new Date(), graceSeconds: 3600, minBytesPerSecond: 16 * 1024 })).toBe(1);
    expect((await fs.readdir(tmp)).sort()).toEqual([writing, 'young.part'].sort());
    source.end(randomBytes(10));
    expect((await put).size).toBe(20);
    expect(await fs.readdir(tmp)).toEqual(['young.part']);
  });
});
