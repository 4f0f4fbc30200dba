import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/**
 * The names runners put on their leases (`jobs.lease_owner`, `outbox.lease_owner`), and telling
 * from a name that its process has died.
 *
 * A name is `<host>:<pid>:<random>`, followed where the process table can be read (Linux's
 * `/proc`) by `~<start>.<space>`: the process's start time (clock ticks after boot) and a digest
 * of the host name, the boot and the process-id namespace. Within one process space (same host,
 * boot and namespace) a process id and its start time name one process: when no process of that
 * id runs any more, or one started at another time does (the id was used again), the runner is
 * dead. Its leases need not run out first: a restarted server takes up at once the deliveries and
 * jobs its previous run left leased. A name of another space (another machine or container) or
 * without the suffix is never taken for dead: its leases run out as before.
 */

/** The longest owner name: `jobs.lease_owner` is varchar(64) (the outbox's takes 200). */
const MAX_OWNER_LENGTH = 64;
const SUFFIX = /:(\d+):[0-9a-f]+~(\d+)\.([0-9a-f]{8})$/;

interface ProcessSpace {
  /** The digest of host, boot and process-id namespace. */
  id: string;
  /** This process's start time. */
  start: string;
}

/** The start time of process `pid` (field 22 of `/proc/<pid>/stat`); undefined when none runs. */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) is in parentheses and may hold spaces: count from its end
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

function readSpace(): ProcessSpace | undefined {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = fs.readlinkSync('/proc/self/ns/pid');
    const start = startTime(process.pid);
    if (!boot || !start || !/^\d+$/.test(start)) return undefined;
    const id = createHash('sha256').update(`${os.hostname()}\n${boot}\n${namespace}`).digest('hex').slice(0, 8);
    return { id, start };
  } catch {
    return undefined;
  }
}

let space: ProcessSpace | null | undefined;

/** This process's space, read once (null where there is no `/proc` to read). */
function processSpace(): ProcessSpace | undefined {
  if (space === undefined) space = readSpace() ?? null;
  return space ?? undefined;
}

/**
 * The name of a lease holder: process `pid`, started at `start` in this process space (both
 * this process's by default). Tests name dead processes with it.
 */
export function leaseOwnerName(options: { pid?: number; start?: string } = {}): string {
  const pid = options.pid ?? process.pid;
  const here = processSpace();
  const start = options.start ?? here?.start;
  const tail = `:${pid}:${randomBytes(3).toString('hex')}${here && start ? `~${start}.${here.id}` : ''}`;
  return `${os.hostname().slice(0, Math.max(1, MAX_OWNER_LENGTH - tail.length))}${tail}`;
}

/** Of `owners`, those naming a process of this process space that no longer runs. */
export function deadLeaseOwners(owners: readonly string[]): string[] {
  const here = processSpace();
  if (!here) return [];
  return owners.filter((owner) => {
    const match = SUFFIX.exec(owner);
    if (!match || match[3] !== here.id) return false;
    const pid = Number(match[1]);
    const start = startTime(pid);
    if (start !== undefined) return start !== match[2];
    // not in the process table we can read (`hidepid`): a process we may not signal still runs
    return !signalable(pid);
  });
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
