import type { Core, ServerModule } from '../module.js';
import { aplRoutes } from './apl.routes.js';
import { peerRegistrationsRoutes } from './peer-registrations.routes.js';
import { PeerRegistrationsService } from './peer-registrations.service.js';

/** Peer registrations (docs/peer-network.md) and the APL partner calls (machines' registrations are served by devices). */
export function registrationsModule({
  database,
  credentials,
  config,
}: Core): ServerModule<{ peerRegistrations: PeerRegistrationsService }> {
  return {
    services: { peerRegistrations: new PeerRegistrationsService(database, credentials, config) },
    routes: [aplRoutes, peerRegistrationsRoutes],
  };
}
