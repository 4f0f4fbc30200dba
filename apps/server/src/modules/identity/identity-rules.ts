import { createHash, timingSafeEqual } from 'node:crypto';
import type { TRole } from '@manifold/contract';

/** A comma-delimited list (spec §5: no spaces) as its entries. */
export function commaList(value: string | null | undefined): string[] {
  return (value ?? '').split(',').filter((entry) => entry.length > 0);
}

/**
 * An absolute `http`/`https` address with a host, as a client's redirect address must be: no
 * `javascript:`, `data:` or other scheme, no relative or scheme-less address.
 */
export function isHttpAddress(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

const ADMIN_AUTHORITIES = new Set(['ADMIN', 'ROLE_ADMIN']);
const USER_AUTHORITIES = new Set(['USER', 'ROLE_USER']);
export const KNOWN_AUTHORITIES = new Set([...ADMIN_AUTHORITIES, ...USER_AUTHORITIES]);

/**
 * The role an API token grants: ADMIN only when its authorities name ADMIN (or ROLE_ADMIN)
 * and the account it acts for is an ADMIN; otherwise USER. A token never raises an account.
 */
export function roleFromAuthorities(authorities: readonly string[], accountRole: TRole): TRole {
  const wantsAdmin = authorities.some((authority) => ADMIN_AUTHORITIES.has(authority.toUpperCase()));
  return wantsAdmin && accountRole === 'ADMIN' ? 'ADMIN' : 'USER';
}

/**
 * The authorities a trusted issuer's JWT carries, from the first of its claims `roles`,
 * `authorities`, `role` (a list or one string) and `scope` / `scp` (space-separated).
 */
export function authoritiesFromClaims(claims: Record<string, unknown>): string[] {
  for (const name of ['roles', 'authorities', 'role']) {
    const value = claims[name];
    if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
    if (typeof value === 'string') return [value];
  }
  for (const name of ['scope', 'scp']) {
    const value = claims[name];
    if (typeof value === 'string') return value.split(' ').filter(Boolean);
    if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  }
  return [];
}

/** Whether an e-mail address is in one of the allowed domains (none configured: any). */
export function emailDomainAllowed(email: string | undefined, allowedDomains: string): boolean {
  const domains = commaList(allowedDomains).map((domain) => domain.toLowerCase());
  if (domains.length === 0) return true;
  const at = email?.lastIndexOf('@') ?? -1;
  if (!email || at < 1) return false;
  return domains.includes(email.slice(at + 1).toLowerCase());
}

/** SHA-256 (hex) of a random API secret or token: what is stored in place of it. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * A local username for an account created on a first SSO login, from the provider's
 * `preferred_username`, else the e-mail address, else the subject: cut to the characters a
 * username may hold (64 letters, digits or `. _ - @ +`).
 */
export function usernameFromClaims(claims: { preferredUsername?: string; email?: string; subject: string }): string {
  const raw = claims.preferredUsername || claims.email || claims.subject;
  return raw.replace(/[^\p{L}\p{N}._\-@+]/gu, '').slice(0, 64);
}
