import type { z } from 'zod';
import type { Caller } from './lib/caller.js';
import type { Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyContextConfig {
    /** A multipart route's form, for the OpenAPI document only (the route reads the parts itself). */
    multipartForm?: z.ZodType;
  }
  interface FastifyRequest {
    /** Set by the auth plugin on routes that need a session. */
    caller: Caller | undefined;
  }
}
