import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEmpty,
  ZPage,
  ZRolesResponse,
  ZUserAddRequest,
  ZUserDeleteRequest,
  ZUserEditRequest,
  ZUserListQuery,
  ZUserProfile,
} from '@manifold/contract';
import type { Caller } from '../../lib/caller.js';
import { callerOf } from '../../plugins/auth.js';
import { usernameKey } from './usernames.js';
import { responses } from '../../lib/route-schemas.js';

export const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { users } = app.services;
  const sensitive = (caller: Caller) => app.services.securityKeys.requireEscalation(caller);

  app.get(
    '/ui/user/list',
    {
      schema: {
        tags: ['users'],
        summary: 'Users, a page at a time',
        querystring: ZUserListQuery,
        response: responses(ZPage(ZUserProfile)),
      },
    },
    (request) => {
      const { search, ...page } = request.query;
      return users.list(page, search);
    },
  );

  app.get('/ui/user/roles', { schema: { tags: ['users'], summary: 'Roles', response: responses(ZRolesResponse) } }, async () => ({
    data: users.roles(),
  }));

  app.post(
    '/ui/user/add',
    { schema: { tags: ['users'], summary: 'Add a user', body: ZUserAddRequest, response: responses(ZUserProfile) } },
    (request) => users.add(request.body, callerOf(request), sensitive),
  );

  app.post(
    '/ui/user/edit',
    { schema: { tags: ['users'], summary: 'Edit a user', body: ZUserEditRequest, response: responses(ZUserProfile) } },
    async (request) => {
      const caller = callerOf(request);
      // an administrator editing someone else's profile is user management (access controls);
      // one's own profile is not, and a USER editing another is refused by the service
      if (caller.role === 'ADMIN' && usernameKey(request.body.username ?? '') !== usernameKey(caller.username)) {
        await app.services.accessControl.require(caller, 'user-management');
      }
      return users.edit(request.body, caller, sensitive);
    },
  );

  app.post(
    '/ui/user/delete',
    { schema: { tags: ['users'], summary: 'Delete a user', body: ZUserDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await users.delete(request.body, callerOf(request));
      return {};
    },
  );
};
