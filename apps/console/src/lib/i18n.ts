import { profileLanguages, type TProfileLanguage } from '@manifold/contract';
import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { storePreference } from './console-config';
import { readCookie } from './cookies';

/** Locales of the app shell (spec §5); Spanish messages exist but the shell does not offer them. */
export const shellLocales = ['en', 'zh'] as const;
export type ShellLocale = (typeof shellLocales)[number];
/** Every message file the console ships under /locales/. */
export const translationLocales = ['en', 'zh', 'es'] as const;
export const defaultLocale: ShellLocale = 'en';
export const localeCookieName = 'locale';

const rtlLanguages = new Set(['ar', 'he', 'fa', 'ur', 'yi', 'ps', 'dv', 'ku']);

function languagePart(locale: string): string {
  return locale.split(/[-_]/)[0]?.toLowerCase() ?? '';
}

/**
 * Fallback of spec §5: the requested locale if supported, else its language part, else English.
 */
export function resolveLocale<L extends string = ShellLocale>(
  requested: string | null | undefined,
  supported: readonly L[] = shellLocales as unknown as readonly L[],
  fallback: L = defaultLocale as L,
): L {
  if (!requested) return fallback;
  const normalized = requested.replace('_', '-').toLowerCase();
  const exact = supported.find((locale) => locale.toLowerCase() === normalized);
  if (exact) return exact;
  const language = languagePart(requested);
  return supported.find((locale) => locale.toLowerCase() === language) ?? fallback;
}

export function textDirection(locale: string): 'ltr' | 'rtl' {
  return rtlLanguages.has(languagePart(locale)) ? 'rtl' : 'ltr';
}

/** Profile languages (spec §3) the console has messages for. */
export const consoleProfileLanguages: readonly TProfileLanguage[] = profileLanguages.filter((language) =>
  (shellLocales as readonly string[]).includes(languagePart(language)),
);

export function systemLocale(): string {
  return navigator.languages[0] ?? navigator.language;
}

export const i18n: I18n = i18next.createInstance();

async function fetchMessages(locale: string): Promise<Record<string, unknown>> {
  const response = await fetch(`/locales/${locale}.json`, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`Messages for ${locale} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

async function ensureMessages(instance: I18n, locale: string): Promise<void> {
  if (instance.hasResourceBundle(locale, 'translation')) return;
  instance.addResourceBundle(locale, 'translation', await fetchMessages(locale), true, true);
}

export function applyDocumentLocale(locale: string): void {
  document.documentElement.lang = locale;
  document.documentElement.dir = textDirection(locale);
}

/** Starts i18n with the cookie's locale, or the system locale when there is none. */
export async function initI18n(instance: I18n = i18n): Promise<ShellLocale> {
  const locale = resolveLocale(readCookie(localeCookieName) ?? systemLocale());
  if (!instance.isInitialized) {
    // the first locale's messages start i18n: kept as fetched, where adding them afterwards
    // (`addResourceBundle`) copies and merges the whole file on the start's main thread
    const messages = await fetchMessages(locale);
    await instance.use(initReactI18next).init({
      lng: locale,
      fallbackLng: defaultLocale,
      supportedLngs: [...translationLocales],
      resources: { [locale]: { translation: messages } },
      partialBundledLanguages: true,
      interpolation: { escapeValue: false },
      returnNull: false,
      showSupportNotice: false,
    });
  }
  await ensureMessages(instance, locale);
  await instance.changeLanguage(locale);
  applyDocumentLocale(locale);
  return locale;
}

/**
 * Locale change of spec §4: store the cookie (or delete it when empty, falling back to the system
 * locale), load the message file, then switch and set the document language and direction.
 */
export async function changeLocale(requested: string | null, instance: I18n = i18n): Promise<ShellLocale> {
  storePreference(localeCookieName, requested);
  const locale = resolveLocale(requested || systemLocale());
  await ensureMessages(instance, locale);
  await instance.changeLanguage(locale);
  applyDocumentLocale(locale);
  return locale;
}
