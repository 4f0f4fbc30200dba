// `npm run bench:upload`: uploads a generated file (1 GiB by default) to a started SQLite server
// through POST /ui/package/files/upload and reports the throughput next to `cp` of the same file
// on the same disk, and the server's resident memory before, during (peak) and after.
// Usage: npm run bench:upload [-- --mib 1024]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rssMiB, startBenchServer, streamMultipartUpload } from './bench-support.js';

const { values } = parseArgs({ options: { mib: { type: 'string', default: '1024' } } });
const mib = Number(values.mib);
const size = mib * 1024 * 1024;
const block = randomBytes(1024 * 1024);

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function writeFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'w');
  for (let written = 0; written < size; written += block.length)
    await handle.write(block, 0, Math.min(block.length, size - written));
  await handle.sync();
  await handle.close();
}

const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'manifold-upload-bench-'));
const { server, sessionToken } = await startBenchServer(dataDir, { UPLOAD_MAX_BYTES: String(size + 1024 * 1024) });
const { child, url } = server;
const pid = child.pid!;
try {
  const pkg = await json<{ dsiId: string }>(
    await fetch(`${url}/ui/package/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sessionToken}` },
      body: JSON.stringify({ designName: 'Upload benchmark' }),
    }),
  );
  // Warm up (JIT, first multipart parse) with a small file before measuring memory.
  await fetch(`${url}/ui/package/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionToken}` },
    body: (() => {
      const form = new FormData();
      form.append('dsiId', pkg.dsiId);
      form.append('isPublic', 'true');
      form.append('file', new Blob([block]), 'warmup.bin');
      return form;
    })(),
  });
  const rssBefore = rssMiB(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 50);
  const started = process.hrtime.bigint();
  const result = await streamMultipartUpload({
    url: `${url}/ui/package/files/upload`,
    token: sessionToken,
    fields: { dsiId: pkg.dsiId, isPublic: 'true' },
    size,
    block,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  if (result.status !== 200) throw new Error(`upload failed: ${result.status} ${result.body}`);
  const file = JSON.parse(result.body) as { size: number; sha256: string };
  if (file.size !== size || file.sha256 !== result.sha256)
    throw new Error('the server recorded another size or digest than was sent');
  await new Promise((r) => setTimeout(r, 500));
  const rssAfter = rssMiB(pid);

  const source = path.join(dataDir, 'cp-source.bin');
  await writeFile(source);
  const cpStarted = process.hrtime.bigint();
  const cp = spawnSync('sh', ['-c', `cp "${source}" "${source}.copy" && sync "${source}.copy"`], { stdio: 'inherit' });
  const cpSeconds = Number(process.hrtime.bigint() - cpStarted) / 1e9;
  if (cp.status !== 0) throw new Error('cp failed');

  const rate = (s: number) => Math.round(mib / s);
  console.table([
    { what: `upload ${mib} MiB (HTTP, multipart, SHA-256, fsync, rename)`, seconds: seconds.toFixed(2), 'MiB/s': rate(seconds) },
    { what: `cp + sync of the same ${mib} MiB on the same disk`, seconds: cpSeconds.toFixed(2), 'MiB/s': rate(cpSeconds) },
  ]);
  console.table([{ 'server RSS before (MiB)': rssBefore, 'peak during upload (MiB)': rssPeak, 'after (MiB)': rssAfter }]);
} finally {
  child.kill('SIGTERM');
  await fsp.rm(dataDir, { recursive: true, force: true });
}
