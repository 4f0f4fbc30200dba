import { deleteCookie, readCookie, writeCookie } from './cookies';
import { cookieOptions } from './console-config';
import type { LoginReason } from './login-redirect';

/** The session cookie: set by the console itself, so not httpOnly (spec §3). */
export const sessionCookieName = 'sessionToken';

export function getSessionToken(): string | undefined {
  return readCookie(sessionCookieName);
}

/**
 * Set when the console dropped the token because the server refused it (401), until the next
 * login: every screen or call that then finds no token says the session expired, as the first
 * refused call did, rather than that a login is needed (calls running side by side end alike).
 */
let refusedByServer = false;

export function setSessionToken(token: string): void {
  refusedByServer = false;
  writeCookie(sessionCookieName, token, cookieOptions());
}

/** Drops the token: `refused` when the server refused it, `ended` when the user logged out. */
export function clearSessionToken(why: 'ended' | 'refused' = 'ended'): void {
  refusedByServer = why === 'refused';
  deleteCookie(sessionCookieName, cookieOptions());
}

/** Why there is no token, for the login page's message. */
export function missingSessionReason(): LoginReason {
  return refusedByServer ? 'sessionExpired' : 'loginRequired';
}
