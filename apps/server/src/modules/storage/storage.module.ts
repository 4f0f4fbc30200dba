import { JobsService } from '../../jobs/jobs.service.js';
import type { Core, ServerModule } from '../module.js';
import { dasRoutes } from './das.routes.js';
import { DasService } from './das.service.js';
import { storageAdminRoutes } from './storage-admin.routes.js';
import { StorageSettingsService } from './storage-settings.service.js';
import { TypedStorageService } from './typed-storage.service.js';
import { typedStorageRoutes } from './typed-storage.routes.js';

/** Storage settings (provider, types, DAS switch) and typed storage (docs/storage.md). */
export function storageModule({
  config,
  database,
  storageProviders,
}: Core): ServerModule<{ storageSettings: StorageSettingsService; typedStorage: TypedStorageService; das: DasService }> {
  return {
    services: {
      storageSettings: new StorageSettingsService(
        database,
        storageProviders,
        new JobsService(database),
        config.storageEndpointHosts,
      ),
      typedStorage: new TypedStorageService(database, storageProviders, config.uploadMaxBytes),
      das: new DasService(database, storageProviders, config.publicUrl),
    },
    routes: [storageAdminRoutes, typedStorageRoutes, dasRoutes],
  };
}
