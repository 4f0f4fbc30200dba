import { describe, expect, it } from 'vitest';
import { accessConstraints, permissions, type PermissionRow } from '@manifold/contract';
import { adminOnlyConstraints, decideAccess, type PolicyRule, type RoleRule } from './access-rules.js';
import { addressInRanges, parseIpRange } from './ip-ranges.js';

const wired: PolicyRule = {
  policyName: 'Internal Wired',
  constraints: ['cui-download', 'audit-access'],
  ranges: ['10.1.0.0/16'],
};
const vpn: PolicyRule = { policyName: 'VPN', constraints: ['cui-download'], ranges: ['fd00::/8', '192.0.2.7'] };
const reader: RoleRule = { roleCode: 'user', constraintName: 'cui-download', memberIds: [7] };

describe('ip ranges', () => {
  it('parses addresses and CIDR ranges and refuses the rest', () => {
    expect(parseIpRange('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseIpRange('2001:db8::1')).toEqual({ address: '2001:db8::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0/8', '1.2.3.4/8/1', '1.2.3.4/-1', ''])
      expect(parseIpRange(bad), bad).toBeNull();
  });

  it('matches IPv4, IPv4-mapped IPv6 and IPv6 clients', () => {
    expect(addressInRanges('10.1.200.3', ['10.1.0.0/16'])).toBe(true);
    expect(addressInRanges('::ffff:10.1.200.3', ['10.1.0.0/16'])).toBe(true);
    expect(addressInRanges('10.2.0.1', ['10.1.0.0/16'])).toBe(false);
    expect(addressInRanges('fd12::5', ['fd00::/8'])).toBe(true);
    expect(addressInRanges('not an address', ['0.0.0.0/0'])).toBe(false);
  });
});

describe('decideAccess', () => {
  it('leaves a constraint no policy or role names unrestricted', () => {
    expect(decideAccess('fci-upload', [wired], [reader], { userId: 1, sourceIp: '203.0.113.1', escalated: false })).toEqual({
      allowed: true,
    });
  });

  it('refuses an address outside every policy that names the constraint', () => {
    const decision = decideAccess('cui-download', [wired, vpn], [], { userId: 7, sourceIp: '203.0.113.1', escalated: false });
    expect(decision).toMatchObject({ allowed: false, reason: 'network' });
    expect(decideAccess('cui-download', [wired, vpn], [], { userId: 7, sourceIp: '192.0.2.7', escalated: false }).allowed).toBe(
      true,
    );
  });

  it('refuses a user without a role granting the constraint', () => {
    expect(decideAccess('cui-download', [wired], [reader], { userId: 8, sourceIp: '10.1.0.9', escalated: false })).toMatchObject({
      allowed: false,
      reason: 'membership',
    });
    expect(decideAccess('cui-download', [wired], [reader], { userId: 7, sourceIp: '10.1.0.9', escalated: false }).allowed).toBe(
      true,
    );
  });

  it('asks a -webauth role for an escalated session', () => {
    const strict: RoleRule = { ...reader, roleCode: 'user-webauth' };
    expect(decideAccess('cui-download', [], [strict], { userId: 7, sourceIp: '10.1.0.9', escalated: false })).toMatchObject({
      allowed: false,
      reason: 'escalation',
    });
    expect(decideAccess('cui-download', [], [strict], { userId: 7, sourceIp: '10.1.0.9', escalated: true }).allowed).toBe(true);
  });

  it('ignores a role whose code does not grant the constraint it names', () => {
    const odd: RoleRule = { roleCode: 'audit-admin', constraintName: 'cui-download', memberIds: [9] };
    expect(decideAccess('cui-download', [], [odd], { userId: 1, sourceIp: '10.1.0.9', escalated: false }).allowed).toBe(true);
  });
});

describe('adminOnlyConstraints', () => {
  it('are the constraints every row naming them gates for ADMIN only; the file labels gate any role', () => {
    const rows = Object.values(permissions as Record<string, PermissionRow>).filter((row) => typeof row === 'object');
    for (const constraint of accessConstraints) {
      const naming = rows.filter((row) => row.constraint === constraint);
      if (adminOnlyConstraints.has(constraint)) {
        expect(naming.length, constraint).toBeGreaterThan(0);
        expect(
          naming.every((row) => row.access === 'admin'),
          constraint,
        ).toBe(true);
      } else {
        // cui-*/fci-*: checked by requireForLabel on uploads and downloads any role makes
        expect(constraint, constraint).toMatch(/^(cui|fci)-/);
      }
    }
  });
});
