import { BlockList, isIP } from 'node:net';

export interface IpRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** An address (`192.0.2.7`, `2001:db8::1`) or CIDR range (`10.0.0.0/8`, `fd00::/8`); null when malformed. */
export function parseIpRange(text: string): IpRange | null {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  return { address, prefix, family };
}

/** `::ffff:192.0.2.7` (an IPv4 client on a dual-stack socket) is the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  const version = isIP(address);
  if (version === 0) return null;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether the client address lies in one of the ranges (malformed ranges match nothing). */
export function addressInRanges(address: string, ranges: readonly string[]): boolean {
  const client = unmapped(address);
  if (!client) return false;
  const list = new BlockList();
  for (const text of ranges) {
    const range = parseIpRange(text);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list.check(client.address, client.family);
}
