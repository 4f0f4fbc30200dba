import type { Core, ServerModule } from '../module.js';
import { devicesRoutes } from './devices.routes.js';
import { DevicesService } from './devices.service.js';

export function devicesModule({ database, storage, credentials }: Core): ServerModule<{ devices: DevicesService }> {
  return { services: { devices: new DevicesService(database, storage, credentials) }, routes: [devicesRoutes] };
}
