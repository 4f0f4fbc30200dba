import type { Caller } from './lib/caller.js';
import type { Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyRequest {
    /** Set by the auth plugin on routes that need a session. */
    caller: Caller | undefined;
  }
}
