import type { EventsService } from '../events/events.service.js';
import type { Core, ServerModule } from '../module.js';
import { InspectionsService } from './inspections.service.js';
import { PartsSearchService } from './parts-search.service.js';
import { qualityRoutes } from './quality.routes.js';
import { SvpService } from './svp.service.js';
import { svpRoutes } from './svp.routes.js';

export function qualityModule(
  { database, storage }: Core,
  events: EventsService,
): ServerModule<{ inspections: InspectionsService; partsSearch: PartsSearchService; svp: SvpService }> {
  return {
    services: {
      inspections: new InspectionsService(database, events, storage),
      partsSearch: new PartsSearchService(database),
      svp: new SvpService(database, storage),
    },
    routes: [qualityRoutes, svpRoutes],
  };
}
