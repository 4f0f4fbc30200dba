import type { QueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy, Suspense } from 'react';
import { createBrowserRouter, redirect, type LoaderFunctionArgs } from 'react-router';
import { networkPages, settingsPages, type SettingsPage } from './settings-pages';
import { RouteErrorView } from '../components/error-view';
import { PageLoader } from '../components/page-loader';
import { nextTask } from '../lib/next-task';
import { loadConsoleConfig } from '../lib/console-config';
import { requireAccess, requireSession, sessionQueryOptions } from '../lib/session';
import { RootShell } from './shell/root-shell';

type Screen = ComponentType;

/**
 * A screen whose code is fetched only once its loader let the navigation through: a route's
 * `lazy` would be fetched alongside its loaders, so a logged-out visitor of a deep link would
 * download the screen before being sent to /login. The loader starts the fetch after its check;
 * rendering waits for it (React.lazy over the same cached import).
 */
function gated(check: (args: LoaderFunctionArgs) => Promise<unknown>, load: () => Promise<Screen>) {
  const Lazy = lazy(async () => ({ default: await load() }));
  return {
    loader: async (args: LoaderFunctionArgs) => {
      // the guard (and a redirect it makes) runs in a task of its own, not in the task that made
      // the router or handled the click that navigated
      await nextTask();
      await check(args);
      // the render awaits the same import; a failed fetch surfaces there, in the error view
      load().catch(() => undefined);
      return null;
    },
    Component: () => (
      <Suspense fallback={<PageLoader />}>
        <Lazy />
      </Suspense>
    ),
  };
}

/**
 * The navigation table (with its icons) is the signed-in shell's: a screen's loader reads it
 * only once the session check let the visitor through, so a logged-out deep link loads no more
 * than /login does.
 */
function screen(queryClient: QueryClient, to: string, load: () => Promise<Screen>) {
  return gated(async ({ request }) => {
    await requireSession(queryClient, request);
    // signed in: the screen's code is fetched beside the navigation table and the role's check, not
    // after them (a screen the role may not open costs its bytes, nothing more: it shows the 403)
    load().catch(() => undefined);
    const { screenRequirement } = await import('./shell/navigation');
    return requireAccess(queryClient, request, screenRequirement(to));
  }, load);
}

/** The login form's code; main.tsx starts it at once for a visitor without a session. */
export const loadLoginRoute = async () => (await import('../features/auth/routes/login-route')).LoginRoute;

const loadAppLayout = async () => (await import('./shell/app-layout')).AppLayout;

/**
 * For a visitor who arrives with a session cookie (a bookmark, a reload): the session check, the
 * signed-in layout's code and the navigation table, started at once beside configuration and
 * messages (main.tsx), not after the router has started and the check has answered. The loaders
 * then find the check's answer (or its refusal) and the code under way. The check waits for the
 * configuration, as the loaders' does (a refused token's cookie is deleted with its options).
 */
export function startSignedIn(queryClient: QueryClient): void {
  loadConsoleConfig()
    .then(() => queryClient.prefetchQuery(sessionQueryOptions()))
    .catch(() => undefined);
  loadAppLayout().catch(() => undefined);
  import('./shell/navigation').catch(() => undefined);
}

/** The pages of a tabbed area: the first on its bare path, each behind its own call's guard. */
function areaPages(queryClient: QueryClient, basePath: string, pages: readonly SettingsPage[]) {
  return [
    // the loader redirects: nothing to render (an explicit null, so no leaf route lacks an element)
    { index: true, loader: () => redirect(`${basePath}/${pages[0]!.path}`), element: null },
    ...pages.map((page) => ({
      path: page.path,
      ...gated(({ request }) => requireAccess(queryClient, request, page.requires), page.load),
    })),
  ];
}

/** Routes of the console; every screen is loaded on demand so /login stays small. */
export function createAppRouter(queryClient: QueryClient) {
  return createBrowserRouter([
    {
      id: 'root',
      element: <RootShell />,
      errorElement: <RouteErrorView standalone />,
      hydrateFallbackElement: <PageLoader />,
      children: [
        {
          path: '/login',
          lazy: async () => ({ Component: await loadLoginRoute() }),
        },
        {
          path: '/login/oidc',
          lazy: async () => ({ Component: (await import('../features/auth/routes/sso-callback-route')).SsoCallbackRoute }),
        },
        {
          path: '/login/saml/:id',
          lazy: async () => ({ Component: (await import('../features/auth/routes/sso-callback-route')).SsoCallbackRoute }),
        },
        {
          id: 'app',
          ...gated(({ request }) => requireSession(queryClient, request), loadAppLayout),
          children: [
            {
              errorElement: <RouteErrorView />,
              children: [
                {
                  index: true,
                  ...screen(queryClient, '/', async () => (await import('../features/home/routes/home-route')).HomeRoute),
                },
                {
                  path: 'profile',
                  ...screen(
                    queryClient,
                    '/profile',
                    async () => (await import('../features/profile/routes/profile-route')).ProfileRoute,
                  ),
                },
                {
                  path: 'users',
                  ...screen(queryClient, '/users', async () => (await import('../features/users/routes/users-route')).UsersRoute),
                },
                {
                  path: 'access-policies',
                  ...screen(
                    queryClient,
                    '/access-policies',
                    async () => (await import('../features/access-control/routes/access-policies-route')).AccessPoliciesRoute,
                  ),
                },
                {
                  path: 'access-roles',
                  ...screen(
                    queryClient,
                    '/access-roles',
                    async () => (await import('../features/access-control/routes/access-roles-route')).AccessRolesRoute,
                  ),
                },
                {
                  path: 'groups',
                  ...screen(
                    queryClient,
                    '/groups',
                    async () => (await import('../features/groups/routes/groups-route')).GroupsRoute,
                  ),
                },
                {
                  path: 'packages',
                  ...screen(
                    queryClient,
                    '/packages',
                    async () => (await import('../features/packages/routes/packages-route')).PackagesRoute,
                  ),
                },
                {
                  path: 'packages/:dsiId',
                  ...screen(
                    queryClient,
                    '/packages',
                    async () => (await import('../features/packages/routes/package-route')).PackageRoute,
                  ),
                },
                {
                  path: 'devices',
                  ...screen(
                    queryClient,
                    '/devices',
                    async () => (await import('../features/devices/routes/devices-route')).DevicesRoute,
                  ),
                },
                {
                  path: 'devices/:deviceId',
                  ...screen(
                    queryClient,
                    '/devices',
                    async () => (await import('../features/devices/routes/device-route')).DeviceRoute,
                  ),
                },
                {
                  path: 'queue',
                  ...screen(
                    queryClient,
                    '/queue',
                    async () => (await import('../features/outbox/routes/queue-route')).QueueRoute,
                  ),
                },
                {
                  path: 'outbox',
                  ...screen(
                    queryClient,
                    '/outbox',
                    async () => (await import('../features/outbox/routes/outbox-route')).OutboxRoute,
                  ),
                },
                {
                  path: 'quality',
                  ...screen(
                    queryClient,
                    '/quality',
                    async () => (await import('../features/quality/routes/quality-route')).QualityRoute,
                  ),
                },
                {
                  path: 'quality/inspect',
                  ...screen(
                    queryClient,
                    '/quality/inspect',
                    async () => (await import('../features/quality/routes/inspect-route')).InspectRoute,
                  ),
                },
                {
                  path: 'trace-parameters',
                  ...screen(
                    queryClient,
                    '/trace-parameters',
                    async () => (await import('../features/quality/routes/trace-parameters-route')).TraceParametersRoute,
                  ),
                },
                {
                  path: 'orders',
                  ...screen(
                    queryClient,
                    '/orders',
                    async () => (await import('../features/orders/routes/orders-route')).OrdersRoute,
                  ),
                },
                {
                  path: 'orders/:orderId',
                  ...screen(
                    queryClient,
                    '/orders',
                    async () => (await import('../features/orders/routes/order-route')).OrderRoute,
                  ),
                },
                {
                  path: 'orders/:orderId/authorize',
                  ...screen(
                    queryClient,
                    '/orders',
                    async () => (await import('../features/orders/routes/authorize-route')).AuthorizeRoute,
                  ),
                },
                {
                  path: 'secure-files',
                  ...screen(
                    queryClient,
                    '/secure-files',
                    async () => (await import('../features/secure-files/routes/secure-files-route')).SecureFilesRoute,
                  ),
                },
                {
                  path: 'secure-files/:nodeId',
                  ...screen(
                    queryClient,
                    '/secure-files',
                    async () => (await import('../features/secure-files/routes/secure-files-route')).SecureFilesRoute,
                  ),
                },
                {
                  path: 'authorizations',
                  ...screen(
                    queryClient,
                    '/authorizations',
                    async () => (await import('../features/authorizations/routes/authorizations-route')).AuthorizationsRoute,
                  ),
                },
                {
                  path: 'audit',
                  ...screen(queryClient, '/audit', async () => (await import('../features/trace/routes/audit-route')).AuditRoute),
                },
                {
                  path: 'events',
                  ...screen(
                    queryClient,
                    '/events',
                    async () => (await import('../features/trace/routes/events-route')).EventsRoute,
                  ),
                },
                {
                  path: 'builds',
                  ...screen(
                    queryClient,
                    '/builds',
                    async () => (await import('../features/trace/routes/builds-route')).BuildsRoute,
                  ),
                },
                {
                  path: 'builds/:buildId',
                  ...screen(
                    queryClient,
                    '/builds',
                    async () => (await import('../features/trace/routes/build-route')).BuildRoute,
                  ),
                },
                {
                  path: 'parts',
                  ...screen(queryClient, '/parts', async () => (await import('../features/trace/routes/parts-route')).PartsRoute),
                },
                {
                  path: 'parts/:partId',
                  ...screen(queryClient, '/parts', async () => (await import('../features/trace/routes/part-route')).PartRoute),
                },
                {
                  path: 'machine-data',
                  ...screen(
                    queryClient,
                    '/machine-data',
                    async () => (await import('../features/trace/routes/machine-data-route')).MachineDataRoute,
                  ),
                },
                {
                  path: 'das',
                  ...screen(queryClient, '/das', async () => (await import('../features/das/routes/das-route')).DasRoute),
                },
                {
                  path: 'storage',
                  ...screen(
                    queryClient,
                    '/storage',
                    async () => (await import('../features/setup/routes/storage-route')).StorageRoute,
                  ),
                },
                {
                  path: 'identity-providers',
                  ...screen(
                    queryClient,
                    '/identity-providers',
                    async () => (await import('../features/identity/routes/sso-providers-route')).SsoProvidersRoute,
                  ),
                },
                {
                  path: 'authentication-servers',
                  ...screen(
                    queryClient,
                    '/authentication-servers',
                    async () => (await import('../features/identity/routes/trusted-issuers-route')).TrustedIssuersRoute,
                  ),
                },
                {
                  path: 'clients',
                  ...screen(
                    queryClient,
                    '/clients',
                    async () => (await import('../features/identity/routes/oauth-clients-route')).OauthClientsRoute,
                  ),
                },
                {
                  path: 'setup',
                  ...screen(queryClient, '/setup', async () => (await import('../features/setup/routes/setup-route')).SetupRoute),
                },
                {
                  path: 'settings',
                  ...screen(queryClient, '/settings', async () => (await import('./shell/settings-layout')).SettingsLayout),
                  children: areaPages(queryClient, '/settings', settingsPages),
                },
                {
                  path: 'network',
                  ...screen(
                    queryClient,
                    '/network',
                    async () => (await import('../features/network/routes/network-layout')).NetworkLayout,
                  ),
                  children: areaPages(queryClient, '/network', networkPages),
                },
              ],
            },
          ],
        },
        {
          path: '*',
          loader: () => {
            throw new Response('Not Found', { status: 404, statusText: 'Not Found' });
          },
        },
      ],
    },
  ]);
}
