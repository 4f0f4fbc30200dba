import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ZCertificateChainRequest, ZCertificateChainResponse } from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';

export const certificateExchangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { certificateExchange } = app.services;

  app.post(
    '/certificate/certificateChain',
    {
      schema: {
        tags: ['partner'],
        summary:
          "Certificate exchange between peers: verifies the caller's chain against this server's trust anchors and answers this server's certificates",
        body: ZCertificateChainRequest,
        response: responses(ZCertificateChainResponse),
      },
    },
    (request) => certificateExchange.exchange(request.body),
  );
};
