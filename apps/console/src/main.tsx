import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/providers';
import { createAppRouter, loadLoginRoute, startSignedIn } from './app/router';
import { loadConsoleConfig } from './lib/console-config';
import { i18n, initI18n } from './lib/i18n';
import { setLoginNavigator } from './lib/login-redirect';
import { nextTask } from './lib/next-task';
import { queryClient } from './lib/query-client';
import { getSessionToken } from './lib/session-token';
import { initTheme } from './lib/theme';

/**
 * The start, in steps that each leave the main thread between them (a phone evaluating the app
 * in one task cannot answer a tap for hundreds of milliseconds).
 */
async function start(): Promise<void> {
  // configuration and messages are fetched while the rest starts
  const ready = Promise.all([loadConsoleConfig(), initI18n()]);
  initTheme();
  await nextTask();
  // A visitor without a session ends at the login form wherever they arrived: fetch its code now,
  // beside configuration and messages, not after a deep link's guard has redirected. A visitor
  // with one: their session check and the signed-in layout's code, now as well.
  const signedIn = getSessionToken() !== undefined;
  const loginCode = signedIn ? undefined : loadLoginRoute().catch(() => undefined);
  if (signedIn) startSignedIn(queryClient);
  // The router is made once they are here: its start is the longest step left, and made while
  // their answers arrive and their code is compiled it shared the processor with that work.
  await ready;
  await loginCode;
  await nextTask();
  const router = createAppRouter(queryClient);
  setLoginNavigator((to) => void router.navigate(to));
  await nextTask();
  const container = document.getElementById('root');
  if (!container) throw new Error('The page has no #root element');
  const root = createRoot(container);
  // a transition renders in slices that yield to the browser; the logo frame stays until it commits
  startTransition(() =>
    root.render(
      <StrictMode>
        <AppProviders queryClient={queryClient} i18n={i18n}>
          <RouterProvider router={router} />
        </AppProviders>
      </StrictMode>,
    ),
  );
}

void start();
