import { deleteCookie, readCookie, writeCookie } from './cookies';
import { cookieOptions } from './console-config';

/** The session cookie: set by the console itself, so not httpOnly (spec §3). */
export const sessionCookieName = 'sessionToken';

export function getSessionToken(): string | undefined {
  return readCookie(sessionCookieName);
}

export function setSessionToken(token: string): void {
  writeCookie(sessionCookieName, token, cookieOptions());
}

export function clearSessionToken(): void {
  deleteCookie(sessionCookieName, cookieOptions());
}
