import type { ServerModule } from '../module.js';
import { adminRoutes } from './admin.routes.js';

export function adminModule(): ServerModule {
  return { services: {}, routes: [adminRoutes] };
}
