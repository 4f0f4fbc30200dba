import type { Core, ServerModule } from '../module.js';
import { aplRoutes } from './apl.routes.js';
import { manageRegistrationsRoutes } from './manage-registrations.routes.js';
import { ManageRegistrationsService } from './manage-registrations.service.js';

/** Peer registrations (docs/peer-network.md) and the APL partner calls (machines' registrations are served by devices). */
export function registrationsModule({
  database,
  credentials,
  config,
}: Core): ServerModule<{ manageRegistrations: ManageRegistrationsService }> {
  return {
    services: { manageRegistrations: new ManageRegistrationsService(database, credentials, config) },
    routes: [aplRoutes, manageRegistrationsRoutes],
  };
}
