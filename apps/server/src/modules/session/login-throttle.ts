import { isIPv4, isIPv6 } from 'node:net';
import type { LoginThrottleConfig } from '../../config.js';

/** The eight 16-bit groups of an IPv6 address (zone removed), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const text = address.replace(/%.*$/s, '');
  if (!isIPv6(text)) return undefined;
  // a dotted IPv4 tail (`::ffff:192.0.2.1`) is two groups
  const withoutDots = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a: string, b: string, c: string, d: string) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
  );
  const [head, tail] = withoutDots.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  const groups = tail === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.length === 8 ? groups : undefined;
}

/**
 * The source a failed login is counted against: an IPv4 address itself (an IPv4-mapped IPv6
 * address as its IPv4 address), an IPv6 address by its /64 (`2001:db8:1:2::/64`, the usual
 * allocation to one client: counting each address would give it 2^64 fresh counters). Anything
 * else as it is.
 */
export function throttleSource(address: string): string {
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  // the /64 written as RFC 5952 writes it: its four zero groups at the end are the longest run
  const prefix = groups.slice(0, 4);
  while (prefix.length > 0 && prefix.at(-1) === 0) prefix.pop();
  return `${prefix.map((group) => group.toString(16)).join(':')}::/64`;
}

/**
 * Failed-login throttling (docs/api.md#failed-logins). Three counters, each with a growing delay
 * (an address is its `throttleSource`: an IPv6 client's /64):
 *
 * - `pair:<username>|<address>` — one source guessing one account: free for `slowAfter`
 *   failures, then each further failure doubles the wait (from `slowdownMs`, capped at
 *   `lockSeconds`).
 * - `ip:<address>` — one source spraying many accounts: the same curve after `5 × maxFailures`.
 * - `user:<username>` — many sources guessing one account: the same curve after `maxFailures`;
 *   each source adds at most `slowAfter` failures to it, so a flood from one address never
 *   holds back the owner logging in from elsewhere.
 *
 * An attempt is counted before its password is checked, in one transaction that locks the
 * counters, and refused unchecked while any of them says "not before": 100 parallel guesses
 * check at most `slowAfter + 1` passwords. A successful login clears its source's and its
 * account's counters. Failures older than `windowSeconds` are forgotten.
 */
export class LoginThrottlePolicy {
  constructor(private readonly config: LoginThrottleConfig) {}

  keys(usernameKey: string, sourceIp: string): { pair: string; ip: string; user: string } {
    const user = usernameKey.slice(0, 150);
    const ip = throttleSource(sourceIp).slice(0, 45);
    return { pair: `pair:${user}|${ip}`, ip: `ip:${ip}`, user: `user:${user}` };
  }

  /** Failures a key may have before waits begin. */
  freeFailures(kind: 'pair' | 'ip' | 'user'): number {
    if (kind === 'pair') return this.config.slowAfter;
    return kind === 'ip' ? this.config.maxFailures * 5 : this.config.maxFailures;
  }

  /** How long a key with `failures` recent failures must wait before its next check, ms. */
  waitMs(kind: 'pair' | 'ip' | 'user', failures: number): number {
    const over = failures - this.freeFailures(kind);
    if (over <= 0) return 0;
    return Math.min(this.config.slowdownMs * 2 ** Math.min(over - 1, 30), this.config.lockSeconds * 1000);
  }

  /** Whether failures counted since `windowStart` are too old to count at `now`. */
  expired(windowStart: string, now: Date): boolean {
    return new Date(windowStart).getTime() < now.getTime() - this.config.windowSeconds * 1000;
  }

  /** Whether a source that has failed `pairFailures` times on an account still adds to the account's count. */
  countsForAccount(pairFailures: number): boolean {
    return pairFailures <= this.config.slowAfter;
  }
}
