import { describe, expect, it } from 'vitest';
import { LoginThrottlePolicy, throttleSource } from './login-throttle.js';

describe('throttleSource', () => {
  it('counts an IPv6 client by its /64, however the address is written', () => {
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0000:0000:0000:0abc',
      '2001:db8:1:2:3:4:5.6.7.8',
      '2001:db8:1:2::1%eth0',
    ]) {
      expect(throttleSource(address), address).toBe('2001:db8:1:2::/64');
    }
    expect(throttleSource('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('writes the /64 compressed (RFC 5952)', () => {
    expect(throttleSource('2001:db8::1')).toBe('2001:db8::/64');
    expect(throttleSource('2001:0:0:5::1')).toBe('2001:0:0:5::/64');
    expect(throttleSource('::1')).toBe('::/64');
    expect(throttleSource('fe80::1234:5678:9abc:def0')).toBe('fe80::/64');
    expect(throttleSource('0:0:0:1::')).toBe('0:0:0:1::/64');
  });

  it('counts IPv4 and IPv4-mapped IPv6 clients by the address', () => {
    expect(throttleSource('192.0.2.10')).toBe('192.0.2.10');
    expect(throttleSource('::ffff:192.0.2.10')).toBe('192.0.2.10');
    expect(throttleSource('::FFFF:c000:20a')).toBe('192.0.2.10');
    expect(throttleSource('0:0:0:0:0:ffff:192.0.2.10')).toBe('192.0.2.10');
  });

  it('leaves what is not an address as it is', () => {
    expect(throttleSource('unknown')).toBe('unknown');
    expect(throttleSource('')).toBe('');
  });

  it('keys the pair and the address counters by the source', () => {
    const policy = new LoginThrottlePolicy({
      maxFailures: 10,
      slowAfter: 3,
      slowdownMs: 1000,
      lockSeconds: 900,
      windowSeconds: 900,
    });
    expect(policy.keys('ada', '2001:db8:1:2:aaaa::9')).toEqual({
      pair: 'pair:ada|2001:db8:1:2::/64',
      ip: 'ip:2001:db8:1:2::/64',
      user: 'user:ada',
    });
    expect(policy.keys('ada', '::ffff:198.51.100.7')).toEqual({
      pair: 'pair:ada|198.51.100.7',
      ip: 'ip:198.51.100.7',
      user: 'user:ada',
    });
  });
});
