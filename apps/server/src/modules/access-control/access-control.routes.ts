import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZAccessControl,
  ZAccessControlAddRequest,
  ZAccessControlDeleteRequest,
  ZAccessControlEditRequest,
  ZAccessRole,
  ZAccessRoleAddRequest,
  ZAccessRoleDeleteRequest,
  ZAccessRoleEditRequest,
} from '@manifold/contract';
import { actionRoute, pageRoute, saveRoute } from '../../lib/route-declarations.js';

/** Access policies and access roles (administrators holding security-config). */
export const accessControlRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accessControl } = app.services;
  const tags = ['access controls'];

  pageRoute(app, '/ui/access-control/list', { tags, summary: 'Access policies, by name', item: ZAccessControl }, (query) =>
    accessControl.listPolicies(query),
  );
  saveRoute(
    app,
    '/ui/access-control/add',
    {
      tags,
      summary: 'Add an access policy: the constraints it restricts to the given address ranges',
      body: ZAccessControlAddRequest,
      response: ZAccessControl,
    },
    (body, caller) => accessControl.addPolicy(body, caller),
  );
  saveRoute(
    app,
    '/ui/access-control/edit',
    {
      tags,
      summary: 'Change an access policy: its name, constraints and address ranges, all given again',
      body: ZAccessControlEditRequest,
      response: ZAccessControl,
    },
    (body, caller) => accessControl.editPolicy(body, caller),
  );
  actionRoute(
    app,
    '/ui/access-control/delete',
    { tags, summary: 'Delete an access policy', body: ZAccessControlDeleteRequest },
    (body, caller) => accessControl.deletePolicy(body, caller),
  );

  pageRoute(app, '/ui/access-role/list', { tags, summary: 'Access roles with their members', item: ZAccessRole }, (query) =>
    accessControl.listRoles(query),
  );
  saveRoute(
    app,
    '/ui/access-role/add',
    {
      tags,
      summary: 'Add an access role: a role code granting one constraint to its members',
      body: ZAccessRoleAddRequest,
      response: ZAccessRole,
    },
    (body, caller) => accessControl.addRole(body, caller),
  );
  saveRoute(
    app,
    '/ui/access-role/edit',
    {
      tags,
      summary: 'Change an access role: code, constraint and members (the list given replaces the stored one)',
      body: ZAccessRoleEditRequest,
      response: ZAccessRole,
    },
    (body, caller) => accessControl.editRole(body, caller),
  );
  actionRoute(
    app,
    '/ui/access-role/delete',
    { tags, summary: 'Delete an access role', body: ZAccessRoleDeleteRequest },
    (body, caller) => accessControl.deleteRole(body, caller),
  );
};
