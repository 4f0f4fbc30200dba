import type { Core, ServerModule } from '../module.js';
import { DashboardService } from './dashboard.service.js';
import { dashboardRoutes } from './dashboard.routes.js';

/** The home dashboard (docs/dashboard.md). */
export function dashboardModule({ database }: Core): ServerModule<{ dashboard: DashboardService }> {
  return { services: { dashboard: new DashboardService(database) }, routes: [dashboardRoutes] };
}
