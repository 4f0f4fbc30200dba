import type { Core, ServerModule } from '../module.js';
import { licenceRoutes } from '../licence/licence.routes.js';
import { adminRoutes } from './admin.routes.js';
import { AdminService } from './admin.service.js';

export function adminModule({ database, serverSettings, licence }: Core): ServerModule<{ admin: AdminService }> {
  return { services: { admin: new AdminService(database, serverSettings, licence) }, routes: [adminRoutes, licenceRoutes] };
}
