// `npm run machine -- --server URL [options]`: the machine simulator's command line
// (packages/machine-simulator/src/cli.ts, docs/simulator.md) from its bundle
// (packages/machine-simulator/dist/cli.mjs, built first when stale by scripts/server-build.mjs).
// The bundle runs in this process, so the signals npm passes on (SIGINT, SIGTERM) reach the
// simulator itself, which then takes its machines offline.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, bundlePath } from './server-build.mjs';

const entry = path.resolve(import.meta.dirname, '../packages/machine-simulator/src/cli.ts');
buildIfStale(entry);
// stack traces name the TypeScript sources, as `--enable-source-maps` would
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundlePath(entry)).href);
