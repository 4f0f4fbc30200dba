// Set-up of the e2e project: each test file claims one of the servers the global set-up started
// (one per worker) for as long as it runs, so files running side by side never share a server and
// a file finds its server as the files before it left it. The claim is a lock file holding the
// worker's process id, taken with O_EXCL; a lock whose process has died is taken over.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';

export interface E2eServer {
  baseUrl: string;
  adminUsername: string;
  adminPassword: string;
}

let claimed: { server: E2eServer; lock: string } | undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryLock(lock: string): boolean {
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = Number(fs.readFileSync(lock, 'utf8'));
  if (owner > 0 && alive(owner)) return false;
  // its worker died without releasing it: take it over (another claimant may race for it: one wins)
  fs.rmSync(lock, { force: true });
  return false;
}

/** The server this test file claimed (throws outside a test file's hooks and tests). */
export function ownServer(): E2eServer {
  if (!claimed) throw new Error('no e2e server claimed: call this from a hook or a test');
  return claimed.server;
}

beforeAll(async () => {
  const servers = inject('servers');
  const lockDir = inject('serverLocks');
  const deadline = Date.now() + 150_000;
  for (;;) {
    for (const [index, server] of servers.entries()) {
      const lock = path.join(lockDir, `${index}.lock`);
      if (tryLock(lock)) {
        claimed = { server, lock };
        return;
      }
    }
    if (Date.now() > deadline) throw new Error(`every e2e server stayed claimed (${lockDir})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(() => {
  if (claimed) fs.rmSync(claimed.lock, { force: true });
  claimed = undefined;
});
