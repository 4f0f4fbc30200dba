// Bundles the server into one ES module, apps/server/dist/main.mjs (with its source map), when the
// bundle is missing or older than its sources: apps/server/src/main.ts, the workspace code it
// imports (@manifold/contract) and the npm packages it loads at start, compiled by esbuild into one
// file with whitespace and syntax minified (names kept; stack traces map back through the source
// map). Left out, and loaded from node_modules at run time: the packages with native code
// (`nativePackages`) and those the server loads when first used (`lazyPackage`: the storage SDKs,
// SAML, security keys, the database drivers). `npm start`, the tests' server processes and the demo
// run the bundle: Node reads and compiles one file instead of resolving and loading each package's
// modules, or of compiling some 400 TypeScript modules through tsx's loader, at every start (about
// 1.1 s to the first answer, against 1.7 s with the npm packages loaded from node_modules and 4 s
// through tsx, on this machine under load). The benchmarks' bare programs are bundled the same way
// (apps/server/bench/x.ts → apps/server/dist/bench/x.mjs), so both sides run alike, and so is the
// machine simulator's command line (packages/machine-simulator/src/cli.ts →
// packages/machine-simulator/dist/cli.mjs, `npm run machine`).
//
//   node scripts/server-build.mjs [entry.ts]   builds the entry's bundle (the server's by default) when stale
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isStale } from './build-freshness.mjs';

const root = path.resolve(import.meta.dirname, '..');
const serverDir = path.join(root, 'apps/server');
export const serverEntry = path.join(serverDir, 'src/main.ts');

/** The npm packages with native code (a `.node` addon esbuild cannot bundle), loaded from node_modules. */
const nativePackages = ['better-sqlite3', '@node-rs/argon2'];

/** The workspaces whose programs are bundled: the server (and its tools and bare programs), the machine simulator. */
const bundledWorkspaces = [serverDir, path.join(root, 'packages/machine-simulator')];

/** Where the bundle of `entry` (a TypeScript file of a bundled workspace) is written: its `dist`. */
export function bundlePath(entry = serverEntry) {
  const workspace = bundledWorkspaces.find((dir) => !path.relative(dir, entry).startsWith('..'));
  if (!workspace) throw new Error(`${entry} is not under apps/server or packages/machine-simulator`);
  const relative = path.relative(workspace, entry).replace(/^src\//, '');
  return path.join(workspace, 'dist', relative.replace(/\.ts$/, '.mjs'));
}

function sourcesOf(entry) {
  return [
    path.join(serverDir, 'src'),
    path.join(root, 'packages/contract/src'),
    path.dirname(entry),
    path.join(serverDir, 'tsconfig.json'),
    // the npm packages bundled in: an install that changes one rebuilds
    path.join(root, 'package-lock.json'),
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
    // Node maps stack traces with the mappings alone
    sourcesContent: false,
    minifyWhitespace: true,
    minifySyntax: true,
    // the CommonJS packages bundled in require Node's modules
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'native-packages-external',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            const name = args.path
              .split('/')
              .slice(0, args.path.startsWith('@') ? 2 : 1)
              .join('/');
            return nativePackages.includes(name) ? { path: args.path, external: true } : undefined;
          });
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
  // on standard error: a command-line tool built before it runs keeps standard output for its own
  console.error(`manifold: built ${path.relative(root, outfile)} in ${Date.now() - started} ms`);
}

if (import.meta.filename === process.argv[1]) {
  const entry = path.resolve(process.argv[2] ?? serverEntry);
  if (isStale(bundlePath(entry), sourcesOf(entry))) await build(entry);
}
