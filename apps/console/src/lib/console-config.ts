import { z } from 'zod';
import { deleteCookie, writeCookie, type CookieOptions } from './cookies';

/** `GET /console-config.json`: runtime branding and cookie settings served by the server. */
export const ZConsoleConfig = z.object({
  siteName: z.string(),
  publicUrl: z.string(),
  secureCookies: z.boolean(),
  cookieDomain: z.string().nullable(),
  version: z.string(),
});
export type TConsoleConfig = z.infer<typeof ZConsoleConfig>;

function fallbackConfig(): TConsoleConfig {
  return {
    siteName: 'Manifold',
    publicUrl: window.location.origin,
    secureCookies: window.location.protocol === 'https:',
    cookieDomain: null,
    version: '',
  };
}

let current: TConsoleConfig | undefined;
let pending: Promise<TConsoleConfig> | undefined;

/** Loads the configuration once; later calls share the same answer. */
export function loadConsoleConfig(): Promise<TConsoleConfig> {
  pending ??= fetchConsoleConfig();
  return pending;
}

async function fetchConsoleConfig(): Promise<TConsoleConfig> {
  try {
    const response = await fetch('/console-config.json', { headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(`console-config.json answered ${response.status}`);
    current = ZConsoleConfig.parse(await response.json());
  } catch (error) {
    console.warn('Console configuration unavailable; using the page origin', error);
    current = fallbackConfig();
  }
  return current;
}

export function setConsoleConfig(config: TConsoleConfig): void {
  current = config;
  pending = Promise.resolve(config);
}

export function getConsoleConfig(): TConsoleConfig {
  current ??= fallbackConfig();
  return current;
}

/** Cookie attributes of spec §3: path `/`, the configured domain, Lax, Secure unless disabled. */
export function cookieOptions(): CookieOptions {
  const config = getConsoleConfig();
  return { path: '/', domain: config.cookieDomain, sameSite: 'Lax', secure: config.secureCookies };
}

const oneYear = 60 * 60 * 24 * 365;

/** Stores a preference cookie, or deletes it when the value is empty (spec §4). */
export function storePreference(name: string, value: string | null | undefined): void {
  if (value) writeCookie(name, value, { ...cookieOptions(), maxAgeSeconds: oneYear });
  else deleteCookie(name, cookieOptions());
}
