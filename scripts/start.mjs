// `npm start`: builds what is missing, then serves console + API on SQLite by default.
import { spawn } from 'node:child_process';
import { buildConsoleIfStale } from './console-build.mjs';
import { bundledNodeArgs } from './server-build.mjs';

buildConsoleIfStale();

// the server's bundle (scripts/server-build.mjs), built first when stale
const server = spawn(process.execPath, bundledNodeArgs(), {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
