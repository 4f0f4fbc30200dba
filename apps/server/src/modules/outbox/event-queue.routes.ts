import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEventConfiguration,
  ZEventConfigurationUpdate,
  ZQueueDownloadQuery,
  ZQueuedEvent,
  ZQueueEventRequest,
} from '@manifold/contract';
import { actionRoute, pageRoute } from '../../lib/route-declarations.js';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import type { EventQueueService } from './event-queue.service.js';

const tags = ['events'];

/** The event queue (spec §7 `queue/*`) and the event configuration (`admin/event`). */
export function eventQueueRoutes(queue: EventQueueService): FastifyPluginAsyncZod {
  return async (app) => {
    pageRoute(
      app,
      '/ui/queue/list',
      {
        tags,
        summary: 'Events waiting until every Trace instance acknowledged them, newest first (default page size 10)',
        item: ZQueuedEvent,
      },
      (query) => queue.list(query),
    );
    actionRoute(
      app,
      '/ui/queue/send',
      {
        tags,
        summary: 'Tries every delivery of the event not yet acknowledged now (a given-up one again)',
        body: ZQueueEventRequest,
      },
      (body, caller) => queue.send(body.eventId, caller),
    );
    actionRoute(
      app,
      '/ui/queue/delete',
      {
        tags,
        summary: 'Takes the event out of the queue: its deliveries not yet acknowledged are withdrawn',
        body: ZQueueEventRequest,
      },
      (body, caller) => queue.delete(body.eventId, caller),
    );

    app.get(
      '/ui/queue/download',
      {
        schema: {
          tags,
          summary: "The event as XML: the machine's signed document, or the unsigned TraceEvent document of its canonical form",
          querystring: ZQueueDownloadQuery,
          produces: ['application/xml'],
        },
      },
      async (request, reply) => {
        const xml = await queue.download(request.query.traceEventId);
        return reply
          .type('application/xml; charset=utf-8')
          .header('content-disposition', `attachment; filename="event-${request.query.traceEventId}.xml"`)
          .send(xml);
      },
    );

    app.get(
      '/ui/admin/event',
      {
        schema: {
          tags: ['admin'],
          summary:
            'The event configuration: forwarding to the Trace instances on or off, and how long each event is tried (seconds)',
          response: responses(ZEventConfiguration),
        },
      },
      () => queue.configuration(),
    );

    app.post(
      '/ui/admin/event',
      {
        schema: {
          tags: ['admin'],
          summary: 'Changes the event configuration; a null or absent field leaves its value unchanged',
          body: ZEventConfigurationUpdate,
          response: responses(ZEventConfiguration),
        },
      },
      (request) => queue.configure(request.body, callerOf(request)),
    );
  };
}
