import type { Core, ServerModule } from '../module.js';
import { groupsRoutes } from './groups.routes.js';
import { GroupsService } from './groups.service.js';

export function groupsModule({ database }: Core): ServerModule<{ groups: GroupsService }> {
  return { services: { groups: new GroupsService(database) }, routes: [groupsRoutes] };
}
