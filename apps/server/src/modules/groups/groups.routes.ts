import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEmpty,
  ZGroup,
  ZGroupAddRequest,
  ZGroupDeleteRequest,
  ZGroupEditRequest,
  ZGroupListQuery,
  ZPage,
} from '@manifold/contract';
import { callerOf } from '../../plugins/auth.js';
import { responses } from '../../lib/route-schemas.js';

export const groupsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { groups } = app.services;

  app.get(
    '/ui/groups/list',
    {
      schema: {
        tags: ['groups'],
        summary: 'Groups, a page at a time (filter: search in the name)',
        querystring: ZGroupListQuery,
        response: responses(ZPage(ZGroup)),
      },
    },
    (request) => {
      const { search, ...page } = request.query;
      return groups.list(page, search);
    },
  );

  app.post(
    '/ui/groups/add',
    { schema: { tags: ['groups'], summary: 'Add a group', body: ZGroupAddRequest, response: responses(ZGroup) } },
    (request) => groups.add(request.body, callerOf(request)),
  );

  app.post(
    '/ui/groups/edit',
    { schema: { tags: ['groups'], summary: 'Edit a group', body: ZGroupEditRequest, response: responses(ZGroup) } },
    (request) => groups.edit(request.body, callerOf(request)),
  );

  app.post(
    '/ui/groups/delete',
    { schema: { tags: ['groups'], summary: 'Delete a group', body: ZGroupDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await groups.delete(request.body, callerOf(request));
      return {};
    },
  );
};
