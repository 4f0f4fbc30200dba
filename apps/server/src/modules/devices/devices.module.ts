import type { Core, ServerModule } from '../module.js';
import { devicesRoutes } from './devices.routes.js';
import { DevicesService } from './devices.service.js';

export function devicesModule(
  { database, storage, credentials, licence }: Core,
  approved?: ConstructorParameters<typeof DevicesService>[4],
): ServerModule<{ devices: DevicesService }> {
  return {
    services: { devices: new DevicesService(database, storage, credentials, licence, approved) },
    routes: [devicesRoutes],
  };
}
