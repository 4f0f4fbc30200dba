import type { Core, ServerModule } from '../module.js';
import { certificateExchangeRoutes } from './certificate-exchange.routes.js';
import { CertificateExchangeService } from './certificate-exchange.service.js';

export function certificateExchangeModule({
  database,
  credentials,
}: Core): ServerModule<{ certificateExchange: CertificateExchangeService }> {
  return {
    services: { certificateExchange: new CertificateExchangeService(database, credentials) },
    routes: [certificateExchangeRoutes],
  };
}
