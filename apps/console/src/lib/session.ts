import { ZEmpty, ZSessionResponse, type RouteKey, type TRole, canCall } from '@manifold/contract';
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { redirect } from 'react-router';
import { apiRequest } from './api-client';
import { consoleConfigQueryOptions, isScreenOpen, loadConsoleConfig } from './console-config';
import { InvalidSessionError } from './api-errors';
import { loginPath } from './login-redirect';
import { clearSessionToken, getSessionToken, missingSessionReason } from './session-token';

export const sessionQueryKey = ['session'] as const;
/** Written on logout so other open tabs notice (spec §4) through the `storage` event. */
export const logoutMarkerKey = 'manifold.logout';

/** `GET /ui/user/login`: the signed-in user and whether the session is escalated. */
export function sessionQueryOptions() {
  return queryOptions({
    queryKey: sessionQueryKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/user/login', ZSessionResponse, { signal, redirectOnUnauthorized: false }),
  });
}

function returnAddress(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * Loader guard: the session of the signed-in user, or a redirect to /login carrying the message
 * and the address to come back to (spec §2).
 */
export async function requireSession(client: QueryClient, request: Request) {
  await loadConsoleConfig();
  if (!getSessionToken()) throw redirect(loginPath(missingSessionReason(), returnAddress(request)));
  try {
    return await client.ensureQueryData(sessionQueryOptions());
  } catch (error) {
    if (error instanceof InvalidSessionError) {
      client.removeQueries({ queryKey: sessionQueryKey });
      throw redirect(loginPath(error.kind === 'loginRequired' ? 'loginRequired' : 'sessionExpired', returnAddress(request)));
    }
    throw error;
  }
}

/** Loader guard for a screen that needs a route of the permission table; 403 otherwise. */
export async function requireAccess(client: QueryClient, request: Request, route: RouteKey) {
  const session = await requireSession(client, request);
  if (!canCall(session.userProfile.role, route)) {
    throw new Response('Action not allowed', { status: 403, statusText: 'Forbidden' });
  }
  // a screen of a switched-off function or addon is gone, as its calls are
  if (!isScreenOpen(await client.ensureQueryData(consoleConfigQueryOptions()), route)) {
    throw new Response('Entity does not exist', { status: 404, statusText: 'Not Found' });
  }
  return session;
}

export function roleCan(role: TRole | undefined, route: RouteKey): boolean {
  return canCall(role, route);
}

/** Ends the session in this tab: cookie and cached data go. */
export function endSession(client: QueryClient): void {
  clearSessionToken();
  client.cancelQueries().catch(() => undefined);
  client.clear();
}

/** Logout of spec §4: revoke the token on the server, end the session, tell the other tabs. */
export async function logout(client: QueryClient): Promise<void> {
  if (getSessionToken()) {
    try {
      await apiRequest('POST /ui/user/logout', ZEmpty, { body: {}, redirectOnUnauthorized: false });
    } catch (error) {
      // The token may already be revoked or expired; the local session ends either way.
      console.info('Logout call failed', error);
    }
  }
  endSession(client);
  localStorage.setItem(logoutMarkerKey, String(Date.now()));
}

/** Calls `onLogout` when another tab logs out. */
export function listenForLogout(onLogout: () => void): () => void {
  const handler = (event: StorageEvent) => {
    if (event.key === logoutMarkerKey && event.newValue) onLogout();
  };
  window.addEventListener('storage', handler);
  return () => window.removeEventListener('storage', handler);
}
