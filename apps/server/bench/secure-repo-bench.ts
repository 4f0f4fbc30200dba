// `npm run bench:secure-repo`: uploads generated files (64 and 256 MiB by default) into a secure
// repository folder of a started SQLite server and downloads them again (POST
// /ui/secure-repo/upload, GET /ui/secure-repo/download: encrypted at rest in AES-256-GCM records,
// decrypted and verified on the way out). Next to it, the bare limit: Node stream-copying the
// same bytes through the same cipher to a file on the same disk (SHA-256, encrypt, write, fsync)
// and back (read, decrypt, SHA-256), in one process without HTTP or a database. Also the
// server's peak resident memory per file size: it stays flat as the file grows.
// Usage: npm run bench:secure-repo [-- --mib 64,256]
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createRecordDecryptStream, createRecordEncryptStream, generateRecordKey } from '../src/crypto/record-encryption.js';
import { peakRss, rssMiB, startBenchServer, streamMultipartUpload } from './bench-support.js';

const { values } = parseArgs({ options: { mib: { type: 'string', default: '64,256' } } });
const sizesMiB = values.mib.split(',').map(Number);
if (sizesMiB.some((mib) => !Number.isInteger(mib) || mib < 1)) throw new Error('--mib takes whole MiB, comma-separated');
const block = randomBytes(1024 * 1024);

function* blocks(size: number): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += block.length) yield block.subarray(0, Math.min(block.length, size - sent));
}

/** A sink that hashes what it receives. */
function hashingSink(hash: ReturnType<typeof createHash>): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback();
    },
  });
}

/** Streams a download into a hash; answers the status and the SHA-256 received. */
function download(url: string, token: string): Promise<{ status: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        const hash = createHash('sha256');
        pipeline(response, hashingSink(hash)).then(
          () => resolve({ status: response.statusCode ?? 0, sha256: hash.digest('hex') }),
          reject,
        );
      })
      .on('error', reject);
  });
}

/** The bare limit: the same bytes through the same cipher to the same disk and back, in this process. */
async function bareRoundTrip(dir: string, size: number): Promise<{ upSeconds: number; downSeconds: number }> {
  const file = path.join(dir, `bare-${size}.bin`);
  const key = generateRecordKey();
  const sent = createHash('sha256');
  const upStarted = process.hrtime.bigint();
  const handle = await fsp.open(file, 'w');
  await pipeline(
    Readable.from(blocks(size)),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        sent.update(chunk);
        yield chunk;
      }
    },
    createRecordEncryptStream(key),
    handle.createWriteStream(),
  );
  const sync = await fsp.open(file, 'r');
  await sync.sync();
  await sync.close();
  const upSeconds = Number(process.hrtime.bigint() - upStarted) / 1e9;
  const received = createHash('sha256');
  const downStarted = process.hrtime.bigint();
  await pipeline(fs.createReadStream(file), createRecordDecryptStream(key), hashingSink(received));
  const downSeconds = Number(process.hrtime.bigint() - downStarted) / 1e9;
  if (sent.digest('hex') !== received.digest('hex')) throw new Error('the bare round trip changed the bytes');
  await fsp.rm(file);
  return { upSeconds, downSeconds };
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const largest = Math.max(...sizesMiB) * 1024 * 1024;
const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'manifold-secure-repo-bench-'));
const { server, sessionToken, auth } = await startBenchServer(dataDir, { UPLOAD_MAX_BYTES: String(largest) });
const { child, url } = server;
const pid = child.pid!;
try {
  const folder = await json<{ nodeId: string }>(
    await fetch(`${url}/ui/secure-repo/create-folder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ folderName: 'Benchmark', groups: [] }),
    }),
  );
  // Warm up (JIT, first multipart parse, first download) before measuring.
  const warm = await streamMultipartUpload({
    url: `${url}/ui/secure-repo/upload`,
    token: sessionToken,
    fields: { nodeId: folder.nodeId },
    size: block.length,
    block,
    filename: 'warm-up.bin',
  });
  if (warm.status !== 200) throw new Error(`warm-up upload: ${warm.status} ${warm.body}`);
  await download(`${url}/ui/secure-repo/download?nodeId=${(JSON.parse(warm.body) as { nodeId: string }).nodeId}`, sessionToken);
  const rssIdle = rssMiB(pid);

  const rows: Record<string, string | number>[] = [];
  const memory: Record<string, string | number>[] = [];
  const rate = (mib: number, seconds: number) => Math.round(mib / seconds);
  for (const mib of sizesMiB) {
    const size = mib * 1024 * 1024;
    const upStarted = process.hrtime.bigint();
    const up = await peakRss(pid, () =>
      streamMultipartUpload({
        url: `${url}/ui/secure-repo/upload`,
        token: sessionToken,
        fields: { nodeId: folder.nodeId },
        size,
        block,
        filename: `bench-${mib}.bin`,
      }),
    );
    const upSeconds = Number(process.hrtime.bigint() - upStarted) / 1e9;
    if (up.result.status !== 200) throw new Error(`upload failed: ${up.result.status} ${up.result.body}`);
    const node = JSON.parse(up.result.body) as { nodeId: string; size: number; sha256: string };
    if (node.size !== size || node.sha256 !== up.result.sha256) throw new Error('the server recorded another size or digest');

    const downStarted = process.hrtime.bigint();
    const down = await peakRss(pid, () => download(`${url}/ui/secure-repo/download?nodeId=${node.nodeId}`, sessionToken));
    const downSeconds = Number(process.hrtime.bigint() - downStarted) / 1e9;
    if (down.result.status !== 200 || down.result.sha256 !== up.result.sha256)
      throw new Error('the download differs from the upload');

    const bare = await bareRoundTrip(dataDir, size);
    rows.push(
      {
        what: `${mib} MiB upload (HTTP, multipart, SHA-256, AES-256-GCM records, fsync)`,
        'MiB/s': rate(mib, upSeconds),
        'bare limit MiB/s': rate(mib, bare.upSeconds),
        ratio: (bare.upSeconds / upSeconds).toFixed(2),
      },
      {
        what: `${mib} MiB download (HTTP, decrypt and verify every record)`,
        'MiB/s': rate(mib, downSeconds),
        'bare limit MiB/s': rate(mib, bare.downSeconds),
        ratio: (bare.downSeconds / downSeconds).toFixed(2),
      },
    );
    memory.push({
      'file (MiB)': mib,
      'server RSS idle (MiB)': rssIdle,
      'peak during upload (MiB)': up.peakMiB,
      'peak during download (MiB)': down.peakMiB,
    });
  }
  console.table(rows);
  console.table(memory);
} finally {
  await server.stop();
  await fsp.rm(dataDir, { recursive: true, force: true });
}
