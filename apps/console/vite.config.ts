import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import postcssPresetMantine from 'postcss-preset-mantine';
import postcssSimpleVars from 'postcss-simple-vars';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import { defineConfig, type Plugin, type Rollup } from 'vite';

/**
 * The contract's modules hold schemas beside the permission rows and enums the console's entry
 * needs; building a zod schema is a chain of calls Rollup cannot prove free of effects, so every
 * schema of a module would ship (and be built at start) with one row of it. Building a schema
 * has no effect outside it: each top-level schema definition of the contract becomes a pure
 * immediately-called function, evaluated where it was, and dropped from the bundle when unused.
 * Works on esbuild's output, where a top-level statement spanning lines closes at column 0.
 */
function pureSchemaDefinitions(code: string): string {
  const lines = code.split('\n');
  const start = /^((?:export )?const [A-Za-z_$][\w$]* = )((?:z|Z[\w$]*)[.(].*)$/;
  for (let first = 0; first < lines.length; first += 1) {
    const head = start.exec(lines[first]!);
    if (!head) continue;
    let last = first;
    while (last < lines.length && !(lines[last]!.endsWith(';') && (last === first || !/^\s/.test(lines[last]!)))) last += 1;
    if (last === lines.length) break;
    lines[first] = `${head[1]}/* @__PURE__ */ (() => ${head[2]}`;
    lines[last] = `${lines[last]!.slice(0, -1)})();`;
    first = last;
  }
  return lines.join('\n');
}

function pureContractSchemas(): Plugin {
  const contractSource = '/packages/contract/src/';
  return {
    name: 'manifold:pure-contract-schemas',
    apply: 'build',
    transform(code, id) {
      if (!id.includes(contractSource)) return null;
      const marked = pureSchemaDefinitions(code);
      return marked === code ? null : { code: marked, map: null };
    },
  };
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const compressible = /\.(?:js|css|html|json|svg|txt)$/;

/**
 * Every text file of the build (the public folder's included) also as `.br` (quality 11) and
 * `.gz` (level 9) beside it, which the server sends to a browser that accepts them
 * (`@fastify/static`'s `preCompressed`): compressed once at build time, not at every request.
 * A file that does not shrink gets no compressed copy.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'manifold:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && compressible.test(entry.name))
        .map((entry) => join(entry.parentPath, entry.name));
      await Promise.all(
        files.map(async (file) => {
          const body = await readFile(file);
          const [br, gz] = await Promise.all([
            brotli(body, {
              params: {
                [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
                [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
                [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
              },
            }),
            gzipped(body, { level: 9 }),
          ]);
          if (br.length < body.length) await writeFile(`${file}.br`, br);
          if (gz.length < body.length) await writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/**
 * The entry (src/boot.ts) imports the app in steps, each evaluated in a task of its own; Vite's
 * preload of a dynamic import fetches only that import's chunks, so the steps would be fetched one
 * after another. Every dynamic import of the entry preloads the chunks of all of them instead
 * (`build.modulePreload.resolveDependencies` below): fetched at once, evaluated in steps. The
 * bundle is kept here for that function (Vite resolves the preloads in its `generateBundle`).
 */
let bundleOfBuild: Rollup.OutputBundle = {};
function keepBundle(): Plugin {
  return {
    name: 'manifold:keep-bundle',
    apply: 'build',
    generateBundle: {
      order: 'pre',
      handler(_options, bundle) {
        bundleOfBuild = bundle;
      },
    },
  };
}

function chunksOf(fileName: string, into: Set<string>): Set<string> {
  const chunk = bundleOfBuild[fileName];
  if (chunk?.type !== 'chunk' || into.has(fileName)) return into;
  into.add(fileName);
  for (const imported of chunk.imports) chunksOf(imported, into);
  return into;
}

/** The chunks the entry's steps load (with the entry itself): every one is in place before the app runs. */
const startChunksOfBuild = new WeakMap<Rollup.OutputBundle, Set<string>>();
function startChunks(): Set<string> {
  const known = startChunksOfBuild.get(bundleOfBuild);
  if (known) return known;
  const started = new Set<string>();
  for (const chunk of Object.values(bundleOfBuild)) {
    if (chunk.type !== 'chunk' || !chunk.isEntry) continue;
    started.add(chunk.fileName);
    for (const imported of chunk.dynamicImports) chunksOf(imported, started);
  }
  startChunksOfBuild.set(bundleOfBuild, started);
  return started;
}

function entryPreloads(_fileName: string, deps: string[], { hostId, hostType }: { hostId: string; hostType: 'html' | 'js' }) {
  const host = bundleOfBuild[hostId];
  if (hostType !== 'js' || host?.type !== 'chunk') return deps;
  if (!host.isEntry) {
    // a later import (a screen's) need not list the start's chunks: they are loaded by then (and
    // a preload left out never breaks a load: the browser fetches a module's imports itself)
    const started = startChunks();
    return deps.filter((dep) => !started.has(dep));
  }
  const all = new Set(deps);
  for (const imported of host.dynamicImports) chunksOf(imported, all);
  all.delete(hostId);
  return [...all];
}

const apiTarget = process.env.MANIFOLD_API_URL ?? 'http://127.0.0.1:8080';

const mantineUseId = /[\\/]@mantine[\\/]hooks[\\/]esm[\\/]use-id[\\/]use-id\.mjs$/;
const mantineUseIdReplacement = fileURLToPath(new URL('src/lib/mantine-use-id.ts', import.meta.url));

/** Mantine's `useId` module, resolved to `src/lib/mantine-use-id.ts` (see there why): the build and the tests. */
export function mantineUsesReactId(): Plugin {
  return {
    name: 'manifold-mantine-uses-react-id',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !/[\\/]@mantine[\\/]hooks[\\/]/.test(importer) || !source.includes('use-id')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && mantineUseId.test(resolved.id) ? mantineUseIdReplacement : null;
    },
  };
}

/**
 * The same for `npm run dev`: Vite's dev server bundles Mantine ahead of time with esbuild
 * (`optimizeDeps`), where the plugin above does not apply.
 */
export const mantineUsesReactIdInDev: EsbuildPlugin = {
  name: 'manifold-mantine-uses-react-id',
  setup(build) {
    build.onResolve({ filter: /use-id/ }, async (args) => {
      if (args.pluginData === mantineUseIdReplacement || !/[\\/]@mantine[\\/]hooks[\\/]/.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, {
        importer: args.importer,
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: mantineUseIdReplacement,
      });
      return mantineUseId.test(resolved.path) ? { path: mantineUseIdReplacement } : undefined;
    });
  },
};

/** React with React DOM, the start's first step: one chunk, not React apart for the steps that share it. */
const reactModules = /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/;

/**
 * The library modules the login form needs beyond the start's (Mantine's inputs, button, paper and
 * title with what they share, TanStack Query's mutation hook): one chunk instead of a dozen of a
 * few hundred bytes each, so the login form's code is a handful of requests and preload links.
 * Every signed-in screen uses these too. A component new to the login form joins the list.
 */
const loginFormLibraries = new RegExp(
  [
    String.raw`@mantine[\\/]core[\\/]esm[\\/]components[\\/](ActionIcon|Button|Input|InputBase|Paper|PasswordInput|TextInput|Title|Transition)[\\/]`,
    String.raw`@mantine[\\/]core[\\/]esm[\\/]core[\\/](utils[\\/]create-optional-context|styles-api[\\/]use-resolved-styles-api)[\\/]`,
    String.raw`@mantine[\\/]hooks[\\/]esm[\\/]use-uncontrolled[\\/]`,
    String.raw`@tanstack[\\/](react-query[\\/]build[\\/]modern[\\/]useMutation|query-core[\\/]build[\\/]modern[\\/]mutationObserver)\.js$`,
  ].join('|'),
);

function manualChunks(id: string): string | undefined {
  if (reactModules.test(id)) return 'client';
  if (loginFormLibraries.test(id)) return 'form-controls';
  return undefined;
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), mantineUsesReactId(), pureContractSchemas(), keepBundle(), precompress()],
  resolve: {
    alias: [
      {
        find: /^use-sync-external-store\/shim$/,
        replacement: fileURLToPath(new URL('src/lib/use-sync-external-store-shim.ts', import.meta.url)),
      },
    ],
  },
  css: {
    postcss: {
      plugins: [
        postcssPresetMantine(),
        postcssSimpleVars({
          // a library's stylesheet may contain `$word` text of its own; only ours must resolve
          unknown(node, name) {
            if (node.source?.input.file?.includes(`${sep}node_modules${sep}`)) return;
            throw node.error(`Undefined variable $${name}`);
          },
          variables: {
            'mantine-breakpoint-xs': '36em',
            'mantine-breakpoint-sm': '48em',
            'mantine-breakpoint-md': '62em',
            'mantine-breakpoint-lg': '75em',
            'mantine-breakpoint-xl': '88em',
          },
        }),
      ],
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 700,
    // the console's browsers all support `<link rel="modulepreload">`: no polyfill in the entry
    modulePreload: { polyfill: false, resolveDependencies: entryPreloads },
    rollupOptions: {
      output: {
        manualChunks,
      },
    },
  },
  optimizeDeps: { esbuildOptions: { plugins: [mantineUsesReactIdInDev] } },
  server: {
    port: 5173,
    proxy: {
      '/ui': apiTarget,
      '/console-config.json': apiTarget,
      '/healthz': apiTarget,
    },
  },
});
