import type { Core, ServerModule } from '../module.js';
import { licenceRoutes } from '../licence/licence.routes.js';
import { adminRoutes } from './admin.routes.js';
import { AdminService } from './admin.service.js';

export function adminModule({ serverSettings, settings, licence }: Core): ServerModule<{ admin: AdminService }> {
  return { services: { admin: new AdminService(serverSettings, settings, licence) }, routes: [adminRoutes, licenceRoutes] };
}
