import type { Core, ServerModule } from '../module.js';
import { auditRoutes } from './audit.routes.js';
import { AuditService } from './audit.service.js';

export function auditModule({ database }: Core): ServerModule<{ audit: AuditService }> {
  return { services: { audit: new AuditService(database) }, routes: [auditRoutes] };
}
