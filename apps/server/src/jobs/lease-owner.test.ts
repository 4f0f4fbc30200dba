import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { deadLeaseOwners, leaseOwnerName } from './lease-owner.js';

/** The start time /proc gives for `pid` (field 22 of its stat). */
function startOf(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** Higher than any process id Linux hands out (its limit is 2^22). */
const NO_SUCH_PROCESS = 4_194_305;

describe('lease owners', () => {
  it('names this process by host, id, a random part, its start time and its process space', () => {
    const owner = leaseOwnerName();
    expect(owner).toMatch(
      new RegExp(`^${os.hostname().slice(0, 20)}.*:${process.pid}:[0-9a-f]{6}~${startOf(process.pid)}\\.[0-9a-f]{8}$`),
    );
    expect(owner.length).toBeLessThanOrEqual(64);
    expect(leaseOwnerName()).not.toBe(owner);
  });

  it('keeps a name within the 64 characters of jobs.lease_owner whatever the host name', () => {
    const hostname = vi.spyOn(os, 'hostname').mockReturnValue('h'.repeat(63));
    try {
      const owner = leaseOwnerName();
      expect(owner.length).toBe(64);
      expect(owner.startsWith('hhh')).toBe(true);
    } finally {
      hostname.mockRestore();
    }
  });

  it('takes no running runner of this process for dead', () => {
    expect(deadLeaseOwners([leaseOwnerName(), leaseOwnerName()])).toEqual([]);
  });

  it('finds dead a process that is gone, and one whose id a later process took', () => {
    const gone = leaseOwnerName({ pid: NO_SUCH_PROCESS, start: '1' });
    const reused = leaseOwnerName({ start: String(Number(startOf(process.pid)) - 1) });
    expect(deadLeaseOwners([gone, reused, leaseOwnerName()])).toEqual([gone, reused]);
  });

  it('finds a child process alive while it runs and dead once it exited', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => undefined, 30_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const owner = leaseOwnerName({ pid: child.pid!, start: startOf(child.pid!) });
      expect(deadLeaseOwners([owner])).toEqual([]);
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      expect(deadLeaseOwners([owner])).toEqual([owner]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('never takes for dead a runner of another process space or a name it cannot read', () => {
    expect(
      deadLeaseOwners([
        `${os.hostname()}:${NO_SUCH_PROCESS}:abcdef~1.00000000`,
        `${os.hostname()}:${NO_SUCH_PROCESS}:abcdef`,
        'dead',
        '',
      ]),
    ).toEqual([]);
  });
});
