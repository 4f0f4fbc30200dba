import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ZDashboard } from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

export const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  const { dashboard } = app.services;

  app.get(
    '/ui/dashboard',
    {
      schema: {
        tags: ['dashboard'],
        summary:
          'Manifold extension (not in the spec): the home dashboard\u2019s figures in one call; peers and first run for ADMIN',
        response: responses(ZDashboard),
      },
    },
    (request) => dashboard.dashboard(callerOf(request).role),
  );
};
