import type { Core, ServerModule } from '../module.js';
import { aplRoutes } from './apl.routes.js';
import { peerRegistrationsRoutes } from './peer-registrations.routes.js';
import { PeerRegistrationsService } from './peer-registrations.service.js';
import { protectRegistrationsRoutes } from './protect-registrations.routes.js';
import { ProtectRegistrationsService } from './protect-registrations.service.js';

/** Peer registrations (docs/peer-network.md) and the APL partner calls (machines' registrations are served by devices). */
export function registrationsModule({
  database,
  credentials,
  config,
  serverSettings,
  licence,
}: Core): ServerModule<{ peerRegistrations: PeerRegistrationsService; protectRegistrations: ProtectRegistrationsService }> {
  return {
    services: {
      peerRegistrations: new PeerRegistrationsService(database, credentials, config, serverSettings, licence),
      protectRegistrations: new ProtectRegistrationsService(database, credentials, licence),
    },
    routes: [aplRoutes, peerRegistrationsRoutes, protectRegistrationsRoutes],
  };
}
