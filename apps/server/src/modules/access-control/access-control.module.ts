import type { Core, ServerModule } from '../module.js';
import { accessControlRoutes } from './access-control.routes.js';
import { AccessControlService } from './access-control.service.js';

export function accessControlModule({ database }: Core): ServerModule<{ accessControl: AccessControlService }> {
  return { services: { accessControl: new AccessControlService(database) }, routes: [accessControlRoutes] };
}
