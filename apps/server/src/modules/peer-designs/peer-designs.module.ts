import type { OrdersService } from '../licensing/orders.service.js';
import type { Core, ServerModule } from '../module.js';
import type { PackagesService } from '../packages/packages.service.js';
import type { PeerRegistrationsService } from '../registrations/peer-registrations.service.js';
import type { ProtectRegistrationsService } from '../registrations/protect-registrations.service.js';
import { DesignPackages } from './design-packages.js';
import { FssService } from './fss.service.js';
import { peerDesignsRoutes } from './peer-designs.routes.js';
import { PeerTransfers } from './transfers.service.js';

/**
 * Designs and machine data between instances, and the FSS calls of Protect instances
 * (docs/peer-network.md#designs-between-instances, #the-fss-calls). Its outbox message kinds are
 * received through the outbox module (`handlers`) and delivered by its job (`transferCarriers`).
 */
export function peerDesignsModule(
  { database, storage, credentials, config, serverSettings }: Core,
  services: {
    peerRegistrations: PeerRegistrationsService;
    protectRegistrations: ProtectRegistrationsService;
    orders: OrdersService;
    packages: PackagesService;
  },
): ServerModule<{ peerTransfers: PeerTransfers; fss: FssService }> {
  const designs = new DesignPackages(database, storage, credentials, config.uploadMaxBytes);
  const peerTransfers = new PeerTransfers(database, storage, credentials, designs, config.uploadMaxBytes);
  const fss = new FssService(
    database,
    credentials,
    serverSettings,
    services.peerRegistrations,
    services.protectRegistrations,
    services.orders,
    services.packages,
    designs,
  );
  return { services: { peerTransfers, fss }, routes: [peerDesignsRoutes(peerTransfers, fss)] };
}
