import { storePreference } from './console-config';
import { readCookie } from './cookies';
import { createStore } from './store';

export const themes = ['light', 'dark'] as const;
export type Theme = (typeof themes)[number];
export const themeCookieName = 'theme';
export const defaultTheme: Theme = 'light';

function isTheme(value: string | undefined | null): value is Theme {
  return value === 'light' || value === 'dark';
}

export function themeClass(theme: Theme): string {
  return `theme-${theme}`;
}

export const themeStore = createStore<Theme>(defaultTheme);

function applyBodyClass(theme: Theme): void {
  for (const name of themes) document.body.classList.remove(themeClass(name));
  document.body.classList.add(themeClass(theme));
}

export function initTheme(): Theme {
  const stored = readCookie(themeCookieName);
  const theme = isTheme(stored) ? stored : defaultTheme;
  applyBodyClass(theme);
  themeStore.set(theme);
  return theme;
}

/** Theme change of spec §4: swap the body class and store the cookie (deleted when empty). */
export function changeTheme(requested: Theme | null): Theme {
  storePreference(themeCookieName, requested);
  const theme = requested ?? defaultTheme;
  applyBodyClass(theme);
  themeStore.set(theme);
  return theme;
}
