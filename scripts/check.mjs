// `npm run check`: type-checks every workspace that has a tsconfig (strict, no emit), two at a
// time (each tsc keeps one core busy); each project's output is printed whole when it ends.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
// the largest first, so that the two lanes end close together
const projects = ['apps/server', 'apps/console', 'e2e', 'packages/contract', 'packages/machine-simulator', 'scripts/demo'].filter(
  (p) => fs.existsSync(path.join(root, p, 'tsconfig.json')),
);
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', project, '--noEmit', '--pretty'], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      process.stdout.write(output);
      console.log(`check ${project}: ${code === 0 ? 'ok' : 'failed'}`);
      resolve(code === 0);
    });
  });
}

const queue = [...projects];
let failed = false;
await Promise.all(
  Array.from({ length: 2 }, async () => {
    for (let project = queue.shift(); project !== undefined; project = queue.shift()) failed = !(await check(project)) || failed;
  }),
);
process.exit(failed ? 1 : 0);
