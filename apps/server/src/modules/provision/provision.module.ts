import type { Core, ServerModule } from '../module.js';
import { provisionRoutes } from './provision.routes.js';
import { ProvisionService } from './provision.service.js';

export function provisionModule({
  config,
  database,
  sealer,
  credentials,
  serverSettings,
}: Core): ServerModule<{ provision: ProvisionService }> {
  const provision = new ProvisionService(database, sealer, credentials, {
    siteName: () => serverSettings.siteName(),
    developmentCa: config.developmentCa,
  });
  return { services: { provision }, routes: [provisionRoutes] };
}
