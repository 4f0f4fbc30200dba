import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ZDsiIdQuery,
  ZDsiIdRequest,
  ZEmpty,
  ZImageName,
  ZPackage,
  ZPackageDetail,
  ZPackageInfoRequest,
  ZPackageListQuery,
  ZPage,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { sendImage } from '../images/image-route.js';

/** Design packages: listed, fetched, edited, deleted; their display images. */
export const packagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { packages } = app.services;
  const tags = ['packages'];

  app.get(
    '/ui/package/list',
    {
      schema: {
        tags,
        summary: 'Design packages, a page at a time (filter: name)',
        querystring: ZPackageListQuery,
        response: responses(ZPage(ZPackage)),
      },
    },
    (request) => {
      const { name, ...page } = request.query;
      return packages.list(page, name);
    },
  );

  app.get(
    '/ui/package/fetch',
    {
      schema: {
        tags,
        summary: 'A package with its steps, files, templates and revisions',
        querystring: ZDsiIdQuery,
        response: responses(ZPackageDetail),
      },
    },
    (request) => packages.fetch(request.query.dsiId),
  );

  app.post(
    '/ui/package/info',
    {
      schema: {
        tags,
        summary:
          'Create a package (no dsiId) or update one (dsiId and the version read; a stale version is packageVersionConflict)',
        body: ZPackageInfoRequest,
        response: responses(ZPackage),
      },
    },
    (request) => packages.saveInfo(request.body, callerOf(request)),
  );

  app.post(
    '/ui/package/delete',
    {
      schema: {
        tags,
        summary: 'Delete a package (refused while orders refer to it)',
        body: ZDsiIdRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await packages.delete(request.body, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/package/image/:image',
    { schema: { tags, summary: 'A package display image', params: z.object({ image: ZImageName }) } },
    (request, reply) => sendImage(app, reply, request.params.image, 'package'),
  );
};
