import type { StpService } from '../licensing/stp.service.js';
import type { Core, ServerModule } from '../module.js';
import { eventsRoutes } from './events.routes.js';
import { EventsService } from './events.service.js';
import { PartsService } from './parts.service.js';

export function eventsModule(
  { database }: Core,
  stp: StpService,
  forward?: ConstructorParameters<typeof EventsService>[2],
): ServerModule<{ events: EventsService; parts: PartsService }> {
  return {
    services: { events: new EventsService(database, stp, forward), parts: new PartsService(database) },
    routes: [eventsRoutes],
  };
}
