import type { FastifyInstance } from 'fastify';
import { errorDescriptions } from '@manifold/contract';
import { onEveryRequest } from './request-steps.js';

export const supportedApiVersions = ['1'];

/** `X-API-Version` is optional and defaults to 1; any other version is a 400. */
export function registerApiVersion(app: FastifyInstance): void {
  onEveryRequest(app, (request, reply) => {
    const requested = request.headers['x-api-version'];
    if (requested === undefined) return;
    const version = Array.isArray(requested) ? requested.join(',') : requested.trim();
    if (supportedApiVersions.includes(version)) return;
    reply.status(400).send({
      errorToken: 'unsupportedApiVersion',
      errorDescription: `${errorDescriptions.unsupportedApiVersion}: ${version.slice(0, 20)} (supported: ${supportedApiVersions.join(', ')})`,
    });
    return true;
  });
}
