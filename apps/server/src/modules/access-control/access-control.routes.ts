import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZAccessControl,
  ZAccessControlAddRequest,
  ZAccessControlDeleteRequest,
  ZAccessRole,
  ZAccessRoleAddRequest,
  ZAccessRoleDeleteRequest,
  ZEmpty,
  ZPage,
  ZPageQuery,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** Access policies and access roles (administrators holding security-config). */
export const accessControlRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accessControl } = app.services;
  const tags = ['access controls'];

  app.get(
    '/ui/access-control/list',
    {
      schema: { tags, summary: 'Access policies, by name', querystring: ZPageQuery, response: responses(ZPage(ZAccessControl)) },
    },
    (request) => accessControl.listPolicies(request.query),
  );

  app.post(
    '/ui/access-control/add',
    {
      schema: {
        tags,
        summary: 'Add an access policy: the constraints it restricts to the given address ranges',
        body: ZAccessControlAddRequest,
        response: responses(ZAccessControl),
      },
    },
    (request) => accessControl.addPolicy(request.body, callerOf(request)),
  );

  app.post(
    '/ui/access-control/delete',
    { schema: { tags, summary: 'Delete an access policy', body: ZAccessControlDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await accessControl.deletePolicy(request.body, callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/access-role/list',
    {
      schema: {
        tags,
        summary: 'Access roles with their members',
        querystring: ZPageQuery,
        response: responses(ZPage(ZAccessRole)),
      },
    },
    (request) => accessControl.listRoles(request.query),
  );

  app.post(
    '/ui/access-role/add',
    {
      schema: {
        tags,
        summary: 'Add an access role: a role code granting one constraint to its members',
        body: ZAccessRoleAddRequest,
        response: responses(ZAccessRole),
      },
    },
    (request) => accessControl.addRole(request.body, callerOf(request)),
  );

  app.post(
    '/ui/access-role/delete',
    { schema: { tags, summary: 'Delete an access role', body: ZAccessRoleDeleteRequest, response: responses(ZEmpty) } },
    async (request) => {
      await accessControl.deleteRole(request.body, callerOf(request));
      return {};
    },
  );
};
