import type { Core, ServerModule } from '../module.js';
import { securityKeysRoutes } from './security-keys.routes.js';
import { SecurityKeysService } from './security-keys.service.js';

export function securityKeysModule({
  database,
  config,
  serverSettings,
  settings,
}: Core): ServerModule<{ securityKeys: SecurityKeysService }> {
  return {
    services: { securityKeys: new SecurityKeysService(database, config.webauthn, () => serverSettings.siteName(), settings) },
    routes: [securityKeysRoutes],
  };
}
