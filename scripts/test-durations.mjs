// Writes scripts/test-durations.json (seconds per test file, by project) from Vitest's record of
// its last run (node_modules/.vite/vitest/<hash>/results.json), for the longest-first order of
// `npm test` (scripts/test-order.ts). Run it after a full `npm test` whose files all passed.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cacheDir = path.join(root, 'node_modules/.vite/vitest');
const records = fs.existsSync(cacheDir)
  ? fs
      .readdirSync(cacheDir)
      .map((dir) => path.join(cacheDir, dir, 'results.json'))
      .filter((file) => fs.existsSync(file))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
  : [];
if (records.length === 0) {
  console.error('test-durations: no record of a Vitest run under node_modules/.vite/vitest: run `npm test` first');
  process.exit(1);
}
const { results } = JSON.parse(fs.readFileSync(records[0], 'utf8'));
const failed = results.filter(([, result]) => result.failed).map(([key]) => key);
if (failed.length > 0) {
  console.error(`test-durations: the last run has failed files (${failed.join(', ')}): their times are not a full run's`);
  process.exit(1);
}
const durations = Object.fromEntries(
  results
    .filter(([key]) => fs.existsSync(path.join(root, key.slice(key.indexOf(':') + 1))))
    .map(([key, result]) => [key, Math.round(result.duration / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const out = path.join(root, 'scripts/test-durations.json');
fs.writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test-durations: ${Object.keys(durations).length} files written to ${path.relative(root, out)}`);
