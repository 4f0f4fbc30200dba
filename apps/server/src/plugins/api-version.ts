import type { FastifyInstance } from 'fastify';
import { errorDescriptions } from '@manifold/contract';

export const supportedApiVersions = ['1'];

/** `X-API-Version` is optional and defaults to 1; any other version is a 400. */
export function registerApiVersion(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const requested = request.headers['x-api-version'];
    if (requested === undefined) return done();
    const version = Array.isArray(requested) ? requested.join(',') : requested.trim();
    if (!supportedApiVersions.includes(version)) {
      reply.status(400).send({
        errorToken: 'unsupportedApiVersion',
        errorDescription: `${errorDescriptions.unsupportedApiVersion}: ${version.slice(0, 20)} (supported: ${supportedApiVersions.join(', ')})`,
      });
      return;
    }
    done();
  });
}
