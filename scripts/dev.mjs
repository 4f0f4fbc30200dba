// `npm run dev`: the server on :8080 and the console's Vite dev server proxying the API to it.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const children = [
  spawn(process.execPath, ['--watch', '--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    stdio: 'inherit',
    env: { COOKIE_SECURE: 'false', ...process.env },
  }),
  spawn('npm', ['run', 'dev', '-w', 'apps/console'], { cwd: root, stdio: 'inherit' }),
];
const stop = (signal) => children.forEach((child) => child.kill(signal));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
for (const child of children) child.on('exit', (code) => (stop('SIGTERM'), process.exit(code ?? 0)));
