import { MantineProvider, type MantineColorSchemeManager } from '@mantine/core';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { useStore } from '../lib/store';
import { themeStore } from '../lib/theme';
import { cssVariablesResolver, mantineTheme } from './theme';

/**
 * The theme lives in the `theme` cookie (spec §4, `lib/theme.ts`) and reaches Mantine as
 * `forceColorScheme`; Mantine's default manager would also read and watch `localStorage`, whose
 * first use in a page is a synchronous round trip to the browser process during the first render.
 */
const cookieColorSchemeManager: MantineColorSchemeManager = {
  get: () => themeStore.get(),
  set: () => undefined,
  subscribe: () => undefined,
  unsubscribe: () => undefined,
  clear: () => undefined,
};

export function AppProviders({ queryClient, i18n, children }: { queryClient: QueryClient; i18n: I18n; children: ReactNode }) {
  const theme = useStore(themeStore);
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <MantineProvider
          theme={mantineTheme}
          forceColorScheme={theme}
          colorSchemeManager={cookieColorSchemeManager}
          cssVariablesResolver={cssVariablesResolver}
        >
          {children}
        </MantineProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
