// Builds the console when its build is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const consoleDir = path.join(root, 'apps/console');
const builtIndex = path.join(consoleDir, 'dist/index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

export function consoleIsStale() {
  if (!fs.existsSync(path.join(consoleDir, 'vite.config.ts'))) return false;
  if (!fs.existsSync(builtIndex)) return true;
  const contractDir = path.join(root, 'packages/contract/src');
  return Math.max(newestMtime(consoleDir), newestMtime(contractDir)) > fs.statSync(builtIndex).mtimeMs;
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
