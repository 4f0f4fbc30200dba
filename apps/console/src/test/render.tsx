import { MantineProvider } from '@mantine/core';
import { render, type RenderResult } from '@testing-library/react';
import i18next, { type i18n as I18n } from 'i18next';
import type { ReactElement } from 'react';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import en from '../../public/locales/en.json';
import es from '../../public/locales/es.json';
import zh from '../../public/locales/zh.json';

export type TestLocale = 'en' | 'zh' | 'es';

const messages: Record<TestLocale, Record<string, unknown>> = { en, zh, es };
const instances = new Map<TestLocale, I18n>();

/**
 * An i18n instance with the messages of `locale` (English by default, and the fallback as in the
 * console), loaded synchronously for component tests.
 */
export function testI18n(locale: TestLocale = 'en'): I18n {
  let instance = instances.get(locale);
  if (!instance) {
    instance = i18next.createInstance();
    void instance.use(initReactI18next).init({
      lng: locale,
      fallbackLng: 'en',
      resources: { en: { translation: en }, [locale]: { translation: messages[locale] } },
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
      showSupportNotice: false,
    });
    instances.set(locale, instance);
  }
  return instance;
}

export function renderWithProviders(ui: ReactElement, { locale = 'en' }: { locale?: TestLocale } = {}): RenderResult {
  return render(
    <I18nextProvider i18n={testI18n(locale)}>
      <MantineProvider env="test">{ui}</MantineProvider>
    </I18nextProvider>,
  );
}
