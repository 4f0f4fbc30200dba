import type { Core, ServerModule } from '../module.js';
import { machineDataRoutes } from './machine-data.routes.js';
import { MachineDataService } from './machine-data.service.js';

export function machineDataModule({ database, storage, config }: Core): ServerModule<{ machineData: MachineDataService }> {
  return {
    services: { machineData: new MachineDataService(database, storage, config.uploadMaxBytes) },
    routes: [machineDataRoutes],
  };
}
