// Bundles the server into one ES module, apps/server/dist/main.mjs (with its source map), when the
// bundle is missing or older than its sources: apps/server/src/main.ts and the workspace code it
// imports (@manifold/contract), compiled by esbuild; npm packages stay imports resolved in
// node_modules. `npm start`, the tests' server processes and the demo run the bundle: Node loads
// one file instead of compiling some 400 TypeScript modules through tsx's loader at every start
// (about 2 s against 4 s to the first answer). The benchmarks' bare programs are bundled the same
// way (apps/server/bench/x.ts → apps/server/dist/bench/x.mjs), so both sides run alike.
//
//   node scripts/server-build.mjs [entry.ts]   builds the entry's bundle (the server's by default) when stale
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isStale } from './build-freshness.mjs';

const root = path.resolve(import.meta.dirname, '..');
const serverDir = path.join(root, 'apps/server');
export const serverEntry = path.join(serverDir, 'src/main.ts');

/** Where the bundle of `entry` (a TypeScript file under apps/server) is written. */
export function bundlePath(entry = serverEntry) {
  const relative = path.relative(serverDir, entry).replace(/^src\//, '');
  if (relative.startsWith('..')) throw new Error(`${entry} is not under apps/server`);
  return path.join(serverDir, 'dist', relative.replace(/\.ts$/, '.mjs'));
}

function sourcesOf(entry) {
  return [
    path.join(serverDir, 'src'),
    path.join(root, 'packages/contract/src'),
    path.dirname(entry),
    path.join(serverDir, 'tsconfig.json'),
    import.meta.filename,
  ];
}

/** The node arguments that run `entry` from its bundle, built first when stale. */
export function bundledNodeArgs(entry = serverEntry) {
  buildIfStale(entry);
  return ['--enable-source-maps', bundlePath(entry)];
}

/** Builds the bundle of `entry` when stale (in a child process: esbuild's plugins need its asynchronous API). */
export function buildIfStale(entry = serverEntry) {
  if (!isStale(bundlePath(entry), sourcesOf(entry))) return;
  const result = spawnSync(process.execPath, [import.meta.filename, entry], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`the build of ${path.relative(root, entry)} failed`);
}

async function build(entry) {
  const esbuild = await import('esbuild');
  const started = Date.now();
  const outfile = bundlePath(entry);
  const result = await esbuild.build({
    entryPoints: [entry],
    tsconfig: path.join(serverDir, 'tsconfig.json'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    outfile,
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'npm-packages-external',
        setup(build) {
          // the workspace's own packages are TypeScript sources: bundle them; every other bare
          // import is an npm package, loaded from node_modules at run time
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@manifold/') ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  // written beside, then renamed: a process starting meanwhile reads the old bundle or the new, whole
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const outputs = [...result.outputFiles].sort((a) => (a.path.endsWith('.map') ? -1 : 1));
  for (const output of outputs) {
    const partial = `${output.path}.${process.pid}.partial`;
    fs.writeFileSync(partial, output.contents);
    fs.renameSync(partial, output.path);
  }
  console.log(`manifold: built ${path.relative(root, outfile)} in ${Date.now() - started} ms`);
}

if (import.meta.filename === process.argv[1]) {
  const entry = path.resolve(process.argv[2] ?? serverEntry);
  if (isStale(bundlePath(entry), sourcesOf(entry))) await build(entry);
}
