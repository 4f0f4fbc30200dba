import { isRouteOpen, type RouteKey, type TGateName } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { z } from 'zod';
import { deleteCookie, writeCookie, type CookieOptions } from './cookies';

/**
 * `GET /console-config.json`: runtime branding, switched-off functions and addons, cookie
 * settings. Read again while the console runs (see {@link consoleConfigQueryOptions}): a rename
 * or a switch shows without reloading the page.
 */
export const ZConsoleConfig = z.object({
  siteName: z.string(),
  closedFunctions: z.array(z.string()).default([]),
  publicUrl: z.string(),
  secureCookies: z.boolean(),
  cookieDomain: z.string().nullable(),
  version: z.string(),
});
export type TConsoleConfig = z.infer<typeof ZConsoleConfig>;

function fallbackConfig(): TConsoleConfig {
  return {
    siteName: 'Manifold',
    closedFunctions: [],
    publicUrl: window.location.origin,
    secureCookies: window.location.protocol === 'https:',
    cookieDomain: null,
    version: '',
  };
}

let current: TConsoleConfig | undefined;
/** When `current` was read from the server (0: not read, or the fallback). */
let currentAt = 0;
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
    currentAt = Date.now();
  } catch (error) {
    console.warn('Console configuration unavailable; using the page origin', error);
    current = fallbackConfig();
  }
  return current;
}

export const consoleConfigQueryKey = ['console-config'] as const;

/** The runtime settings as a query: refreshed like every query (spec §9) and after an admin changes them. */
export function consoleConfigQueryOptions() {
  return queryOptions({
    queryKey: consoleConfigQueryKey,
    queryFn: async () => {
      const response = await fetch('/console-config.json', { headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error(`console-config.json answered ${response.status}`);
      const config = ZConsoleConfig.parse(await response.json());
      setConsoleConfig(config);
      return config;
    },
    // as fresh as its first read: a screen mounted right after the start does not read it again
    initialData: () => current,
    initialDataUpdatedAt: () => currentAt,
  });
}

/** Keeps the runtime settings fresh while a screen shows (the layouts call it). */
export function useConsoleConfigRefresh(): void {
  useQuery(consoleConfigQueryOptions());
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The runtime settings, re-rendering when they change (the brand in the title and header). */
export function useConsoleConfig(): TConsoleConfig {
  return useSyncExternalStore(subscribe, getConsoleConfig);
}

/** Whether the screen built on this call is offered: its function or addon is not switched off. */
export function isScreenOpen(config: TConsoleConfig, route: RouteKey): boolean {
  return isRouteOpen(route.slice(route.indexOf(' ') + 1), config.closedFunctions as TGateName[]);
}

/** Takes a configuration read from the server; the screens re-render only when it changed. */
export function setConsoleConfig(config: TConsoleConfig): void {
  currentAt = Date.now();
  // the parsed answer's fields come in the schema's order
  if (current && JSON.stringify(current) === JSON.stringify(config)) return;
  current = config;
  pending = Promise.resolve(config);
  for (const listener of listeners) listener();
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
