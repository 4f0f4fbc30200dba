// Builds the console when its build is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isStale } from './build-freshness.mjs';

const root = path.resolve(import.meta.dirname, '..');
const consoleDir = path.join(root, 'apps/console');
const builtIndex = path.join(consoleDir, 'dist/index.html');

export function consoleIsStale() {
  if (!fs.existsSync(path.join(consoleDir, 'vite.config.ts'))) return false;
  return isStale(builtIndex, [consoleDir, path.join(root, 'packages/contract/src')]);
}

export function buildConsoleIfStale() {
  if (!consoleIsStale()) return;
  console.log('manifold: building the console…');
  const result = spawnSync('npm', ['run', 'build', '-w', 'apps/console'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('manifold: the console build failed');
    process.exit(result.status ?? 1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) buildConsoleIfStale();
