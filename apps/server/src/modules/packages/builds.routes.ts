import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ZDasListQuery, ZDsiEntry, ZDsiIdRequest, ZDsiRevision, ZPage, ZRevisionQuery } from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** Builds: a package frozen into a signed revision (a DSI entry), and the design archive of them. */
export const buildsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { packages, das } = app.services;
  const tags = ['packages'];

  app.post(
    '/ui/package/build',
    {
      schema: {
        tags,
        summary: 'Freeze the package into a signed revision (a DSI entry)',
        body: ZDsiIdRequest,
        response: responses(ZDsiEntry),
      },
    },
    (request) => packages.build(request.body, callerOf(request)),
  );

  app.get(
    '/ui/das/list',
    {
      schema: {
        tags: ['das'],
        summary: 'DSI entries (built revisions), newest first (filter: dsiId)',
        querystring: ZDasListQuery,
        response: responses(ZPage(ZDsiEntry)),
      },
    },
    (request) => {
      const { dsiId, ...page } = request.query;
      return packages.listRevisions(page, dsiId);
    },
  );

  app.get(
    '/ui/das/fetch',
    {
      schema: {
        tags: ['das'],
        summary: 'A DSI entry (built here or uploaded) with its exact manifest bytes',
        querystring: ZRevisionQuery,
        response: responses(ZDsiRevision),
      },
    },
    async (request) => (await das.fetchUploaded(request.query.revisionId)) ?? packages.fetchRevision(request.query.revisionId),
  );
};
