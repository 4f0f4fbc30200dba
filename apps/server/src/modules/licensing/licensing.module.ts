import type { Core, ServerModule } from '../module.js';
import { AuthorizationDeliveryService } from './authorization-delivery.service.js';
import { DelegatedLicences } from './delegation.js';
import { authorizationsRoutes } from './authorizations.routes.js';
import { AuthorizationsService } from './authorizations.service.js';
import { orderSendersRoutes } from './order-senders.routes.js';
import { OrderSendersService } from './order-senders.service.js';
import { ordersRoutes } from './orders.routes.js';
import { OrdersService } from './orders.service.js';
import { SignedAuthorizations } from './signed-authorization.js';
import { stpRoutes } from './stp.routes.js';
import { StpService } from './stp.service.js';

export function licensingModule({ database, storage, credentials, serverSettings }: Core): ServerModule<{
  orders: OrdersService;
  orderSenders: OrderSendersService;
  authorizations: AuthorizationsService;
  authorizationDelivery: AuthorizationDeliveryService;
  stp: StpService;
  delegatedLicences: DelegatedLicences;
}> {
  const signed = new SignedAuthorizations(database.db, credentials, () => serverSettings.serverUrl());
  return {
    services: {
      orders: new OrdersService(database, credentials),
      orderSenders: new OrderSendersService(database),
      authorizations: new AuthorizationsService(database, signed),
      authorizationDelivery: new AuthorizationDeliveryService(database),
      stp: new StpService(database, storage, signed),
      delegatedLicences: new DelegatedLicences(database.dialect),
    },
    routes: [ordersRoutes, authorizationsRoutes, orderSendersRoutes, stpRoutes],
  };
}
