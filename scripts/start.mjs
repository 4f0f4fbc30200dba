// `npm start`: builds what is missing, then serves console + API on SQLite by default.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildConsoleIfStale } from './console-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
buildConsoleIfStale();

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
