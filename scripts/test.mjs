// `npm test`: every suite (unit, console components, integration on all databases, browser
// end-to-end) in one Vitest run, closing with one line "N passed, N failed". The Debian tools the
// suites run (xmlsec1, openssl, chromium) are seen to first (system-tools.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildConsoleIfStale } from './console-build.mjs';
import { buildIfStale as buildServerIfStale } from './server-build.mjs';
import { ensureSystemTools } from './system-tools.mjs';

if (!ensureSystemTools({ label: 'npm test' })) process.exit(1);

const root = path.resolve(import.meta.dirname, '..');
const report = path.join(root, 'test-results/vitest.json');
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.rmSync(report, { force: true });

buildConsoleIfStale();
// the server processes the suites start run its bundle
buildServerIfStale();

const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });

let passed = 0;
let failed = 0;
if (fs.existsSync(report)) {
  const results = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = results.numPassedTests;
  failed =
    results.numFailedTests + (results.numFailedTestSuites > 0 && results.numFailedTests === 0 ? results.numFailedTestSuites : 0);
  if (results.numTotalTests === 0) {
    console.error('no test ran');
    failed = Math.max(failed, 1);
  }
} else {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
