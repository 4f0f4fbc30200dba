import type { ServerModule } from '../module.js';
import { unimplementedModuleRoutes } from './unimplemented.routes.js';

/** The calls spec §7 marks unimplemented: routes only, each answering 501. */
export function unimplementedModule(): ServerModule {
  return { services: {}, routes: [unimplementedModuleRoutes] };
}
