import { ZRefreshResponse } from '@manifold/contract';
import { apiRequest } from './api-client';
import { getSessionToken, setSessionToken } from './session-token';

/** Refresh this long before the token expires. */
export const refreshLeadMs = 5 * 60_000;

/** The expiry (ms since epoch) a JWT session token carries, if it can be read. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(
      payload
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(payload.length / 4) * 4, '='),
    );
    const exp: unknown = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export async function refreshSession(): Promise<string> {
  const { sessionToken } = await apiRequest('POST /ui/user/refresh', ZRefreshResponse, { body: {} });
  setSessionToken(sessionToken);
  return sessionToken;
}

/**
 * Keeps the session alive while the console is open: one timer per token, set to renew it
 * shortly before it expires (`POST /ui/user/refresh`). Returns the cancel function.
 */
export function scheduleSessionRefresh(now: () => number = Date.now): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cancelled = false;

  const plan = () => {
    const token = getSessionToken();
    const expiry = token ? tokenExpiry(token) : undefined;
    if (cancelled || expiry === undefined) return;
    const delay = Math.max(0, expiry - refreshLeadMs - now());
    timer = setTimeout(
      () => {
        if (getSessionToken() !== token) return plan();
        refreshSession().then(plan, (error: unknown) => console.info('Session refresh failed', error));
      },
      Math.min(delay, 2_147_483_647),
    );
  };

  plan();
  return () => {
    cancelled = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}
