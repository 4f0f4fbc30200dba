import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, type LoaderFunctionArgs } from 'react-router';
import { RouteErrorView } from '../components/error-view';
import { PageLoader } from '../components/page-loader';
import { requireAccess, requireSession } from '../lib/session';
import { screenRequirement } from './shell/navigation';
import { RootShell } from './shell/root-shell';

function guard(queryClient: QueryClient, to: string) {
  const route = screenRequirement(to);
  return async ({ request }: LoaderFunctionArgs) => {
    await requireAccess(queryClient, request, route);
    return null;
  };
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
          lazy: async () => ({ Component: (await import('../features/auth/routes/login-route')).LoginRoute }),
        },
        {
          id: 'app',
          lazy: async () => ({ Component: (await import('./shell/app-layout')).AppLayout }),
          loader: async ({ request }: LoaderFunctionArgs) => {
            await requireSession(queryClient, request);
            return null;
          },
          children: [
            {
              errorElement: <RouteErrorView />,
              children: [
                {
                  index: true,
                  loader: guard(queryClient, '/'),
                  lazy: async () => ({ Component: (await import('../features/home/routes/home-route')).HomeRoute }),
                },
                {
                  path: 'profile',
                  loader: guard(queryClient, '/profile'),
                  lazy: async () => ({ Component: (await import('../features/profile/routes/profile-route')).ProfileRoute }),
                },
                {
                  path: 'users',
                  loader: guard(queryClient, '/users'),
                  lazy: async () => ({ Component: (await import('../features/users/routes/users-route')).UsersRoute }),
                },
                {
                  path: 'groups',
                  loader: guard(queryClient, '/groups'),
                  lazy: async () => ({ Component: (await import('../features/groups/routes/groups-route')).GroupsRoute }),
                },
                {
                  path: 'packages',
                  loader: guard(queryClient, '/packages'),
                  lazy: async () => ({ Component: (await import('../features/packages/routes/packages-route')).PackagesRoute }),
                },
                {
                  path: 'packages/:dsiId',
                  loader: guard(queryClient, '/packages'),
                  lazy: async () => ({ Component: (await import('../features/packages/routes/package-route')).PackageRoute }),
                },
                {
                  path: 'devices',
                  loader: guard(queryClient, '/devices'),
                  lazy: async () => ({ Component: (await import('../features/devices/routes/devices-route')).DevicesRoute }),
                },
                {
                  path: 'devices/:deviceId',
                  loader: guard(queryClient, '/devices'),
                  lazy: async () => ({ Component: (await import('../features/devices/routes/device-route')).DeviceRoute }),
                },
                {
                  path: 'orders',
                  loader: guard(queryClient, '/orders'),
                  lazy: async () => ({ Component: (await import('../features/orders/routes/orders-route')).OrdersRoute }),
                },
                {
                  path: 'orders/:orderId',
                  loader: guard(queryClient, '/orders'),
                  lazy: async () => ({ Component: (await import('../features/orders/routes/order-route')).OrderRoute }),
                },
                {
                  path: 'orders/:orderId/authorize',
                  loader: guard(queryClient, '/orders'),
                  lazy: async () => ({ Component: (await import('../features/orders/routes/authorize-route')).AuthorizeRoute }),
                },
                {
                  path: 'authorizations',
                  loader: guard(queryClient, '/authorizations'),
                  lazy: async () => ({
                    Component: (await import('../features/authorizations/routes/authorizations-route')).AuthorizationsRoute,
                  }),
                },
                {
                  path: 'setup',
                  loader: guard(queryClient, '/setup'),
                  lazy: async () => ({ Component: (await import('../features/setup/routes/setup-route')).SetupRoute }),
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
