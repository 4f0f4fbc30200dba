// `npm run test:e2e`: the browser end-to-end suite alone (Debian chromium, seen to first).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureSystemTools, systemTools } from './system-tools.mjs';

const root = path.resolve(import.meta.dirname, '..');
const tools = systemTools.filter((tool) => tool.command === 'chromium');
if (!ensureSystemTools({ label: 'npm run test:e2e', tools })) process.exit(1);

const run = spawnSync('npx', ['vitest', 'run', '--project', 'e2e', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
