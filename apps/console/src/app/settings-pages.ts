import type { ComponentType } from 'react';
import type { AreaPage } from '../components/tabbed-area';

/** A page of a tabbed area (path under its base path), with the screen it loads on demand. */
export interface SettingsPage extends AreaPage {
  load: () => Promise<ComponentType>;
}

/**
 * The administrator's settings area, one page per concern (spec §2 admin settings). An area that
 * brings its own settings page (in its feature folder) adds its row here; the router and the
 * settings navigation follow.
 */
export const settingsPages: readonly SettingsPage[] = [
  {
    path: 'server',
    labelKey: 'settings.pages.server',
    requires: 'POST /ui/admin/server',
    load: async () => (await import('../features/setup/routes/server-settings-route')).ServerSettingsRoute,
  },
  {
    path: 'database',
    labelKey: 'settings.pages.database',
    requires: 'GET /ui/admin/database',
    load: async () => (await import('../features/setup/routes/database-settings-route')).DatabaseSettingsRoute,
  },
  {
    path: 'storage',
    labelKey: 'settings.pages.storage',
    requires: 'POST /ui/admin/storage/provider',
    load: async () => (await import('../features/setup/routes/storage-route')).StorageRoute,
  },
  {
    path: 'design-archive',
    labelKey: 'settings.pages.designArchive',
    requires: 'GET /ui/das/list',
    load: async () => (await import('../features/das/routes/das-route')).DasRoute,
  },
  {
    path: 'events',
    labelKey: 'settings.pages.events',
    requires: 'POST /ui/admin/event',
    load: async () => (await import('../features/setup/routes/event-forwarding-route')).EventForwardingRoute,
  },
  {
    path: 'addons',
    labelKey: 'settings.pages.addons',
    requires: 'GET /ui/admin/addons',
    load: async () => (await import('../features/setup/routes/addons-route')).AddonsRoute,
  },
  {
    path: 'licence',
    labelKey: 'settings.pages.licence',
    requires: 'GET /ui/admin/licensing/status',
    load: async () => (await import('../features/setup/routes/licence-route')).LicenceRoute,
  },
  {
    path: 'identity-providers',
    labelKey: 'settings.pages.identityProviders',
    requires: 'GET /ui/admin/sso',
    load: async () => (await import('../features/identity/routes/sso-providers-route')).SsoProvidersRoute,
  },
  {
    path: 'authentication-servers',
    labelKey: 'settings.pages.authenticationServers',
    requires: 'GET /ui/authentication/list',
    load: async () => (await import('../features/identity/routes/trusted-issuers-route')).TrustedIssuersRoute,
  },
  {
    path: 'clients',
    labelKey: 'settings.pages.clients',
    requires: 'GET /ui/client/list',
    load: async () => (await import('../features/identity/routes/oauth-clients-route')).OauthClientsRoute,
  },
  {
    path: 'api',
    labelKey: 'settings.pages.api',
    requires: 'GET /ui/admin/api-spec',
    load: async () => (await import('../features/setup/routes/api-reference-route')).ApiReferenceRoute,
  },
];

/** The peer network area (`/network`): Manage, Trace and Protect instances this instance is registered with. */
export const networkPages: readonly SettingsPage[] = [
  {
    path: 'manage',
    labelKey: 'network.pages.manage',
    requires: 'GET /ui/manage/list',
    load: async () => (await import('../features/network/routes/manage-instances-route')).ManageInstancesRoute,
  },
  {
    path: 'trace',
    labelKey: 'network.pages.trace',
    requires: 'GET /ui/trace/list',
    load: async () => (await import('../features/network/routes/trace-instances-route')).TraceInstancesRoute,
  },
  {
    path: 'protect',
    labelKey: 'network.pages.protect',
    requires: 'GET /ui/protect/list',
    load: async () => (await import('../features/network/routes/protect-instances-route')).ProtectInstancesRoute,
  },
];
