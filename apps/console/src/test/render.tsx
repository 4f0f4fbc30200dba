import { MantineProvider } from '@mantine/core';
import { render, type RenderResult } from '@testing-library/react';
import i18next, { type i18n as I18n } from 'i18next';
import type { ReactElement } from 'react';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import en from '../../public/locales/en.json';

let instance: I18n | undefined;

/** An i18n instance with the English messages, loaded synchronously for component tests. */
export function testI18n(): I18n {
  if (!instance) {
    instance = i18next.createInstance();
    void instance.use(initReactI18next).init({
      lng: 'en',
      fallbackLng: 'en',
      resources: { en: { translation: en } },
      interpolation: { escapeValue: false },
      initAsync: false,
      showSupportNotice: false,
    });
  }
  return instance;
}

export function renderWithProviders(ui: ReactElement): RenderResult {
  return render(
    <I18nextProvider i18n={testI18n()}>
      <MantineProvider env="test">{ui}</MantineProvider>
    </I18nextProvider>,
  );
}
