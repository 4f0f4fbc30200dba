// `npm run bench:throttle`: 100 wrong passwords sent at once at one account from one address,
// against a started server with the default throttle settings: how many passwords were really
// checked (the rest refused unchecked), how long the burst took, and whether the owner then
// logs in from another address at once. Usage: npm run bench:throttle [-- --attempts 100]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchPassword, startBenchProcess } from './bench-support.js';

const { values } = parseArgs({ options: { attempts: { type: 'string', default: '100' } } });
const attempts = Number(values.attempts);
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-throttle-'));
// TRUST_PROXY lets one process play several source addresses through X-Forwarded-For
const server = await startBenchProcess(dataDir, { TRUST_PROXY: 'true' });
const login = (pass: string, from: string) =>
  fetch(`${server.url}/ui/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username: 'admin', password: pass }),
  }).then(async (response) => ({
    status: response.status,
    token: ((await response.json()) as { errorToken?: string }).errorToken,
  }));
try {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: attempts }, () => login('wrong-password', '203.0.113.50')));
  const burstMs = performance.now() - started;
  const count = (token: string) => answers.filter((answer) => answer.token === token).length;
  const owner = performance.now();
  const elsewhere = await login(benchPassword, '198.51.100.7');
  const ownerMs = performance.now() - owner;
  console.table([
    {
      'parallel attempts': attempts,
      'passwords checked': count('passwordIncorrect'),
      'refused unchecked': count('loginTemporarilyLocked'),
      'burst ms': Math.round(burstMs),
      'owner elsewhere': elsewhere.status === 200 ? `logged in (${Math.round(ownerMs)} ms)` : `refused: ${elsewhere.token}`,
    },
  ]);
} finally {
  await server.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
