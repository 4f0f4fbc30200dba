import type { TOutboxKind } from '@manifold/contract';
import type { Core, ServerModule } from '../module.js';
import type { PeerRegistrationsService } from '../registrations/peer-registrations.service.js';
import { eventQueueRoutes } from './event-queue.routes.js';
import type { EventQueueService } from './event-queue.service.js';
import { outboxRoutes } from './outbox.routes.js';
import { type MessageHandler, PeerMessagesService } from './peer-messages.service.js';

/**
 * The outbox (docs/peer-network.md#the-outbox): its admin view and the entry point where peers
 * deliver their messages to the handlers of the areas they concern. Delivery itself is the
 * delivery worker (`outbox-delivery.ts`) the jobs module runs, with the `outbox.purge` job.
 */
export function outboxModule(
  { database, credentials }: Core,
  registrations: PeerRegistrationsService,
  eventQueue: EventQueueService,
  handlers: Partial<Record<TOutboxKind, MessageHandler>>,
): ServerModule<{ peerMessages: PeerMessagesService; eventQueue: EventQueueService }> {
  const peerMessages = new PeerMessagesService(database, registrations, credentials, handlers);
  return { services: { peerMessages, eventQueue }, routes: [outboxRoutes(peerMessages), eventQueueRoutes(eventQueue)] };
}
