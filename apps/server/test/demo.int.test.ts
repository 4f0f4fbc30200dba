import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, type DemoKey, spawnDemo } from '../../../scripts/demo/spawn-demo.js';

/**
 * `npm run demo` as a newcomer runs it (its own demo folder and free ports): three server
 * processes come up, every console answers, machines print (their events reach the Trace
 * instance), and SIGTERM to the demo stops every process it started. The demo is SQLite by design
 * (one embedded database per instance), so this test runs once, not per database.
 */
describe('npm run demo', () => {
  let demo: ChildProcess | undefined;
  let serverPids: number[] = [];
  let dir = '';

  afterAll(async () => {
    if (demo?.pid && alive(demo.pid)) demo.kill('SIGKILL');
    for (const pid of serverPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('comes up with every console answering and machines printing, and stops cleanly', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-demo-'));
    // the downstream Manage's order holds 5 parts: its operator asks for more once they are used
    const started = await spawnDemo(dir, ['--delegated-parts', '5'], (child) => (demo = child));
    serverPids = started.serverPids;
    const { child, exited, state } = started;
    const output = started.output;
    const url = (key: DemoKey) => `http://${state.hosts[key]}:${state.ports[key]}`;
    for (const key of ['upstream', 'downstream', 'trace'] as const) {
      expect(output()).toContain(url(key));
      const page = await fetch(`${url(key)}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const login = await fetch(`${url(key)}/ui/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: state.adminPasswords[key] }),
      });
      expect(login.status).toBe(200);
    }
    // the machines' events reach the Trace instance through the upstream's event queue, and the
    // downstream's machine prints the design handed down to its instance (das/transfer)
    const waitForAny = async (key: DemoKey, list: string, what: string) => {
      const { sessionToken } = (await (
        await fetch(`${url(key)}/ui/user/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: state.adminPasswords[key] }),
        })
      ).json()) as { sessionToken: string };
      const deadline = Date.now() + 90_000;
      for (;;) {
        const events = (await (
          await fetch(`${url(key)}/ui/${list}?numberOfItems=10`, {
            headers: { authorization: `Bearer ${sessionToken}` },
          })
        ).json()) as { totalNumOfItems: number };
        if (events.totalNumOfItems > 0) return;
        if (Date.now() > deadline) throw new Error(`${what}:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    await waitForAny('trace', 'event/list', 'no event reached the Trace instance');
    await waitForAny('downstream', 'part/list', 'no part was made at the downstream Manage');
    // the banner says what the demo does: the downstream machines print, they refuse no licence
    expect(output()).toContain('machines: 2 printing for the upstream Manage, 1 for the downstream Manage');
    expect(output()).not.toContain('refuse their licences');
    // its parts used up, the downstream's operator gets 5 more from upstream (a second order there),
    // and goes on printing, with no operator error on the way
    const refilled = Date.now() + 90_000;
    while (!output().includes('the upstream Manage delegates 5 more parts')) {
      if (Date.now() > refilled) throw new Error(`the downstream order was not refilled:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(output()).not.toContain('operator at');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('stopped (server exit codes 0, 0, 0)');
    for (const pid of serverPids) expect(alive(pid)).toBe(false);
  }, 600_000);
});
