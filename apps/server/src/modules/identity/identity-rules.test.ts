import { describe, expect, it } from 'vitest';
import {
  authoritiesFromClaims,
  commaList,
  emailDomainAllowed,
  isHttpAddress,
  roleFromAuthorities,
  secretHash,
  secretMatches,
  usernameFromClaims,
} from './identity-rules.js';

describe('identity rules', () => {
  it('splits comma-delimited lists and drops empty entries', () => {
    expect(commaList('a,b,,c')).toEqual(['a', 'b', 'c']);
    expect(commaList('')).toEqual([]);
    expect(commaList(null)).toEqual([]);
  });

  it('takes only absolute http(s) addresses with a host as redirect addresses', () => {
    for (const good of ['https://mes.example/callback', 'http://127.0.0.1:8080/cb?x=1', 'HTTPS://MES.EXAMPLE']) {
      expect(isHttpAddress(good), good).toBe(true);
    }
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript://%0aalert(1)',
      'data:text/html,x',
      'ftp://files.example',
      'mes.example/callback',
      '/callback',
      '//mes.example/callback',
      'https:mes.example',
      'http://',
      '',
    ]) {
      expect(isHttpAddress(bad), bad).toBe(false);
    }
  });

  it('grants ADMIN only when the authorities ask for it and the account is an ADMIN', () => {
    expect(roleFromAuthorities(['ROLE_ADMIN'], 'ADMIN')).toBe('ADMIN');
    expect(roleFromAuthorities(['admin'], 'ADMIN')).toBe('ADMIN');
    expect(roleFromAuthorities(['ADMIN'], 'USER')).toBe('USER');
    expect(roleFromAuthorities(['USER'], 'ADMIN')).toBe('USER');
    expect(roleFromAuthorities([], 'ADMIN')).toBe('USER');
  });

  it('reads authorities from roles, authorities, role, then scope', () => {
    expect(authoritiesFromClaims({ roles: ['ADMIN', 3], scope: 'USER' })).toEqual(['ADMIN']);
    expect(authoritiesFromClaims({ authorities: 'ROLE_ADMIN' })).toEqual(['ROLE_ADMIN']);
    expect(authoritiesFromClaims({ role: 'USER' })).toEqual(['USER']);
    expect(authoritiesFromClaims({ scope: 'read ADMIN' })).toEqual(['read', 'ADMIN']);
    expect(authoritiesFromClaims({})).toEqual([]);
  });

  it('allows any e-mail domain when none is configured, otherwise only listed ones', () => {
    expect(emailDomainAllowed(undefined, '')).toBe(true);
    expect(emailDomainAllowed('a@Example.com', 'example.com,example.org')).toBe(true);
    expect(emailDomainAllowed('a@evil.com', 'example.com')).toBe(false);
    expect(emailDomainAllowed(undefined, 'example.com')).toBe(false);
    expect(emailDomainAllowed('example.com', 'example.com')).toBe(false);
  });

  it('matches secrets against their stored hash', () => {
    const hash = secretHash('s3cret');
    expect(secretMatches('s3cret', hash)).toBe(true);
    expect(secretMatches('s3cret!', hash)).toBe(false);
    expect(secretMatches('s3cret', 'abcd')).toBe(false);
  });

  it('derives a username from the claims, keeping only allowed characters', () => {
    expect(usernameFromClaims({ preferredUsername: 'ada lovelace<>', subject: 's' })).toBe('adalovelace');
    expect(usernameFromClaims({ email: 'ada@example.com', subject: 's' })).toBe('ada@example.com');
    expect(usernameFromClaims({ subject: 'x'.repeat(80) })).toHaveLength(64);
  });
});
