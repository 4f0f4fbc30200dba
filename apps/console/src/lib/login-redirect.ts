/** Why the console sent someone to the login page; each reason has a message (spec §8). */
export type LoginReason = 'sessionExpired' | 'loginRequired';

const loginReasons: readonly LoginReason[] = ['sessionExpired', 'loginRequired'];

export function isLoginReason(value: string | null): value is LoginReason {
  return value !== null && (loginReasons as readonly string[]).includes(value);
}

type Navigate = (to: string) => void;

let navigate: Navigate = (to) => window.location.assign(to);

/** The router registers its own navigation so a redirect does not reload the page. */
export function setLoginNavigator(next: Navigate): void {
  navigate = next;
}

export function currentLocation(): string {
  const { pathname, search, hash } = window.location;
  return `${pathname}${search}${hash}`;
}

export function loginPath(reason?: LoginReason, returnTo?: string): string {
  const params = new URLSearchParams();
  if (reason) params.set('reason', reason);
  if (returnTo && returnTo !== '/' && !returnTo.startsWith('/login')) params.set('redirect', returnTo);
  const query = params.toString();
  return query ? `/login?${query}` : '/login';
}

export function redirectToLogin(reason: LoginReason): void {
  if (window.location.pathname === '/login') return;
  navigate(loginPath(reason, currentLocation()));
}
