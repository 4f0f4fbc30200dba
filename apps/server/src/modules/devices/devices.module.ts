import type { Core, ServerModule } from '../module.js';
import { devicesRoutes } from './devices.routes.js';
import { DevicesService } from './devices.service.js';

export function devicesModule({ database, storage, credentials, licence }: Core): ServerModule<{ devices: DevicesService }> {
  return { services: { devices: new DevicesService(database, storage, credentials, licence) }, routes: [devicesRoutes] };
}
