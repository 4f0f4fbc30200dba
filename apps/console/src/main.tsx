import '@mantine/core/styles.css';
import '@mantine/charts/styles.css';
import '@mantine/nprogress/styles.css';
import './app/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/providers';
import { createAppRouter } from './app/router';
import { loadConsoleConfig } from './lib/console-config';
import { i18n, initI18n } from './lib/i18n';
import { setLoginNavigator } from './lib/login-redirect';
import { queryClient } from './lib/query-client';
import { initTheme } from './lib/theme';

initTheme();
// The router starts loading the first screen at once, in parallel with configuration and messages.
const router = createAppRouter(queryClient);
setLoginNavigator((to) => void router.navigate(to));

async function start(): Promise<void> {
  await Promise.all([loadConsoleConfig(), initI18n()]);
  const container = document.getElementById('root');
  if (!container) throw new Error('The page has no #root element');
  createRoot(container).render(
    <StrictMode>
      <AppProviders queryClient={queryClient} i18n={i18n}>
        <RouterProvider router={router} />
      </AppProviders>
    </StrictMode>,
  );
}

void start();
