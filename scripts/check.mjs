// `npm run check`: type-checks every workspace that has a tsconfig (strict, no emit).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const projects = ['packages/contract', 'packages/machine-simulator', 'scripts/demo', 'apps/server', 'apps/console', 'e2e'].filter(
  (p) => fs.existsSync(path.join(root, p, 'tsconfig.json')),
);
let failed = false;
for (const project of projects) {
  const result = spawnSync('npx', ['tsc', '-p', project, '--noEmit'], { cwd: root, stdio: 'inherit' });
  console.log(`check ${project}: ${result.status === 0 ? 'ok' : 'failed'}`);
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
