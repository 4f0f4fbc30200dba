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
import { collectionRoutes } from '../../lib/route-declarations.js';

/** Access policies and access roles (administrators holding security-config). */
export const accessControlRoutes: FastifyPluginAsyncZod = async (app) => {
  const { accessControl } = app.services;
  const tags = ['access controls'];

  collectionRoutes(app, '/ui/access-control', tags, {
    list: { summary: 'Access policies, by name', item: ZAccessControl, run: (query) => accessControl.listPolicies(query) },
    add: {
      summary: 'Add an access policy: the constraints it restricts to the given address ranges',
      body: ZAccessControlAddRequest,
      response: ZAccessControl,
      run: (body, caller) => accessControl.addPolicy(body, caller),
    },
    edit: {
      summary: 'Change an access policy: its name, constraints and address ranges, all given again',
      body: ZAccessControlEditRequest,
      response: ZAccessControl,
      run: (body, caller) => accessControl.editPolicy(body, caller),
    },
    delete: {
      summary: 'Delete an access policy',
      body: ZAccessControlDeleteRequest,
      run: (body, caller) => accessControl.deletePolicy(body, caller),
    },
  });

  collectionRoutes(app, '/ui/access-role', tags, {
    list: { summary: 'Access roles with their members', item: ZAccessRole, run: (query) => accessControl.listRoles(query) },
    add: {
      summary: 'Add an access role: a role code granting one constraint to its members',
      body: ZAccessRoleAddRequest,
      response: ZAccessRole,
      run: (body, caller) => accessControl.addRole(body, caller),
    },
    edit: {
      summary: 'Change an access role: code, constraint and members (the list given replaces the stored one)',
      body: ZAccessRoleEditRequest,
      response: ZAccessRole,
      run: (body, caller) => accessControl.editRole(body, caller),
    },
    delete: {
      summary: 'Delete an access role',
      body: ZAccessRoleDeleteRequest,
      run: (body, caller) => accessControl.deleteRole(body, caller),
    },
  });
};
