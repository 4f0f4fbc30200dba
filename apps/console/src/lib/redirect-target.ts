import { getConsoleConfig } from './console-config';

export type RedirectTarget = { kind: 'internal'; path: string } | { kind: 'external'; url: string };

/**
 * Where to go after login. Relative paths stay in the console; an absolute address is allowed
 * only under the canonical address (`publicUrl`), anything else is refused (spec §2).
 */
export function resolveRedirectTarget(
  target: string | null | undefined,
  publicUrl: string = getConsoleConfig().publicUrl,
): RedirectTarget | 'unsafe' {
  if (!target) return { kind: 'internal', path: '/' };
  if (target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\')) {
    return { kind: 'internal', path: target };
  }
  let url: URL;
  let base: URL;
  try {
    url = new URL(target);
    base = new URL(publicUrl);
  } catch {
    return 'unsafe';
  }
  const basePath = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const underBase = url.origin === base.origin && (url.pathname === base.pathname || url.pathname.startsWith(basePath));
  if (!underBase) return 'unsafe';
  if (url.origin === window.location.origin) {
    return { kind: 'internal', path: `${url.pathname}${url.search}${url.hash}` };
  }
  return { kind: 'external', url: url.href };
}
