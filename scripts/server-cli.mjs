// `npm run migrate | backup | licence:issue | verify-history`: runs the server's command-line tool
// apps/server/src/cli/<name>.ts from its bundle (apps/server/dist/cli/<name>.mjs, built first when
// stale by scripts/server-build.mjs, as the server's own is), with the arguments given, and ends with
// its exit code. The tests run the tools the same way (apps/server/test/helpers/cli.ts).
//
//   node scripts/server-cli.mjs <name> [arguments…]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bundledNodeArgs } from './server-build.mjs';

const [name, ...args] = process.argv.slice(2);
const entry = path.resolve(import.meta.dirname, '../apps/server/src/cli', `${name ?? ''}.ts`);
if (!name || !/^[a-z-]+$/.test(name) || !fs.existsSync(entry)) {
  const tools = fs
    .readdirSync(path.dirname(entry))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3));
  console.error(`usage: node scripts/server-cli.mjs <${tools.join(' | ')}> [arguments…]`);
  process.exit(2);
}
const result = spawnSync(process.execPath, [...bundledNodeArgs(entry), ...args], { stdio: 'inherit' });
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
