import type { ClassificationGate } from '../access-control/access-control.service.js';
import type { Core, ServerModule } from '../module.js';
import { secureRepoRoutes } from './secure-repo.routes.js';
import { SecureRepoService } from './secure-repo.service.js';

export function secureRepoModule(
  { database, storage, sealer, config }: Core,
  classification: ClassificationGate,
): ServerModule<{ secureRepo: SecureRepoService }> {
  return {
    services: { secureRepo: new SecureRepoService(database, storage, sealer, config.uploadMaxBytes, classification) },
    routes: [secureRepoRoutes],
  };
}
