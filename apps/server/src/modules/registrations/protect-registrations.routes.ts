import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEmpty,
  ZPage,
  ZPageQuery,
  ZProtectInstance,
  ZProtectTokens,
  ZRegistrationApproveRequest,
  ZRegistrationDeleteRequest,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** `/ui/protect/*`: token pairs for design owners' Protect instances and their registrations (ADMIN). */
export const protectRegistrationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { protectRegistrations } = app.services;
  const tags = ['registrations'];

  app.post(
    '/ui/protect/tokens',
    {
      schema: {
        tags,
        summary: 'A new token pair for a Protect instance to register with (shown once; token1 is its protectId)',
        response: responses(ZProtectTokens),
      },
    },
    (request) => protectRegistrations.tokens(callerOf(request).username),
  );

  app.get(
    '/ui/protect/list',
    {
      schema: {
        tags,
        summary: 'Protect instances and unused token pairs, newest first',
        querystring: ZPageQuery,
        response: responses(ZPage(ZProtectInstance)),
      },
    },
    (request) => protectRegistrations.list(request.query),
  );

  app.post(
    '/ui/protect/approve',
    {
      schema: {
        tags,
        summary: 'Approves (approve: true) or rejects a Protect instance that registered with its token pair',
        body: ZRegistrationApproveRequest,
        response: responses(ZProtectInstance),
      },
    },
    (request) => protectRegistrations.approve(request.body),
  );

  app.post(
    '/ui/protect/delete',
    {
      schema: {
        tags,
        summary: 'Deletes a Protect registration or an unused token pair',
        body: ZRegistrationDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await protectRegistrations.delete(request.body.id);
      return {};
    },
  );
};
