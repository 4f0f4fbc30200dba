import type { ClassificationGate } from '../access-control/access-control.service.js';
import type { Core, ServerModule } from '../module.js';
import { DeviceTemplatesService } from './device-templates.service.js';
import { PackageFilesService } from './package-files.service.js';
import { buildsRoutes } from './builds.routes.js';
import { deviceTemplatesRoutes } from './device-templates.routes.js';
import { packageFilesRoutes } from './package-files.routes.js';
import { packagesRoutes } from './packages.routes.js';
import { workflowStepsRoutes } from './workflow-steps.routes.js';
import { PackagesService } from './packages.service.js';

export function packagesModule(
  { config, database, storage, credentials }: Core,
  classification: ClassificationGate,
): ServerModule<{
  packages: PackagesService;
  packageFiles: PackageFilesService;
  deviceTemplates: DeviceTemplatesService;
}> {
  return {
    services: {
      packages: new PackagesService(database, storage, credentials, config.publicUrl),
      packageFiles: new PackageFilesService(database, storage, credentials, config.uploadMaxBytes, classification),
      deviceTemplates: new DeviceTemplatesService(database),
    },
    routes: [packagesRoutes, workflowStepsRoutes, packageFilesRoutes, deviceTemplatesRoutes, buildsRoutes],
  };
}
