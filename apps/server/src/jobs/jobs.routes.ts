import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ZJob, ZJobListQuery, ZPage } from '@manifold/contract';
import { responses } from '../lib/route-schemas.js';
import type { JobsService } from './jobs.service.js';

export function jobsRoutes(jobs: JobsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ui/admin/jobs',
      {
        schema: {
          tags: ['admin'],
          summary: 'Background jobs, newest first, optionally of one state (failed ones keep their last error)',
          querystring: ZJobListQuery,
          response: responses(ZPage(ZJob)),
        },
      },
      (request) => jobs.list(request.query),
    );
  };
}
