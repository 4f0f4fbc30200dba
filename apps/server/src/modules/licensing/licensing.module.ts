import type { Core, ServerModule } from '../module.js';
import { AuthorizationsService } from './authorizations.service.js';
import { licensingRoutes } from './licensing.routes.js';
import { OrdersService } from './orders.service.js';
import { stpRoutes } from './stp.routes.js';
import { StpService } from './stp.service.js';

export function licensingModule({ config, database, storage, credentials }: Core): ServerModule<{
  orders: OrdersService;
  authorizations: AuthorizationsService;
  stp: StpService;
}> {
  const authorizations = new AuthorizationsService(database, credentials, config.publicUrl);
  return {
    services: {
      orders: new OrdersService(database, credentials),
      authorizations,
      stp: new StpService(database, storage, authorizations),
    },
    routes: [licensingRoutes, stpRoutes],
  };
}
