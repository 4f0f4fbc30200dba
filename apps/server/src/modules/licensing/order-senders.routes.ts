import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ZEmpty, ZOrderSender, ZOrderSenderAddRequest, ZOrderSenderDeleteRequest } from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** Order senders: the certificates an ADMIN trusts to sign `/apl/order/add`. */
export const orderSendersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { orderSenders } = app.services;
  const tags = ['admin'];

  app.get(
    '/ui/admin/order-senders',
    {
      schema: {
        tags,
        summary: 'Certificates trusted to sign /apl/order/add',
        response: responses(z.object({ data: z.array(ZOrderSender) })),
      },
    },
    () => orderSenders.list(),
  );
  app.post(
    '/ui/admin/order-senders',
    {
      schema: {
        tags,
        summary: 'Trust a sender certificate (PEM, end-entity, digitalSignature) to sign /apl/order/add',
        body: ZOrderSenderAddRequest,
        response: responses(ZOrderSender),
      },
    },
    (request) => orderSenders.trust(request.body, callerOf(request)),
  );
  app.post(
    '/ui/admin/order-senders/delete',
    {
      schema: {
        tags,
        summary: 'Stop trusting an order sender',
        body: ZOrderSenderDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await orderSenders.remove(request.body.fingerprint, callerOf(request));
      return {};
    },
  );
};
