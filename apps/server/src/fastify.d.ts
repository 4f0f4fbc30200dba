import type { z } from 'zod';
import type { Caller } from './lib/caller.js';
import type { Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyContextConfig {
    /**
     * A multipart route's form, for the OpenAPI document and for which parts are text: a part
     * without a filename that it names as a text field is read as one, whatever its content type
     * (plugins/multipart.ts). The route reads the parts itself.
     */
    multipartForm?: z.ZodType;
    /**
     * A POST route whose answer is a search's results, with nothing in it the server chose as a
     * secret: compressed as a GET answer is (plugins/compression.ts).
     */
    compressAnswer?: true;
  }
  interface FastifyRequest {
    /** Set by the auth plugin on routes that need a session. */
    caller: Caller | undefined;
  }
}
