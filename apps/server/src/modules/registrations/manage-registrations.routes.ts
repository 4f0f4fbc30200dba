import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEmpty,
  ZManageAddRequest,
  ZManageInstance,
  ZManageListQuery,
  ZPage,
  ZRegistrationApproveRequest,
  ZRegistrationDeleteRequest,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';

export const manageRegistrationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { manageRegistrations } = app.services;
  const tags = ['registrations'];

  app.get(
    '/ui/manage/list',
    {
      schema: {
        tags,
        summary: 'Manage instances registered with this one (registrationType downStreamManage, upStreamManage or all)',
        querystring: ZManageListQuery,
        response: responses(ZPage(ZManageInstance)),
      },
    },
    (request) => {
      const { registrationType, ...page } = request.query;
      return manageRegistrations.list(page, registrationType);
    },
  );

  app.post(
    '/ui/manage/add',
    {
      schema: {
        tags,
        summary:
          'Registers with a Manage instance: exchanges certificates, posts a signed registration to its /apl/registration/add; Pending until the peer approves',
        body: ZManageAddRequest,
        response: responses(ZManageInstance),
      },
    },
    (request) => manageRegistrations.add(request.body),
  );

  app.post(
    '/ui/manage/approve',
    {
      schema: {
        tags,
        summary: 'Approves (approve: true) or rejects a registration a peer asked for; the peer is told first',
        body: ZRegistrationApproveRequest,
        response: responses(ZManageInstance),
      },
    },
    (request) => manageRegistrations.approve(request.body),
  );

  app.post(
    '/ui/manage/delete',
    {
      schema: {
        tags,
        summary: 'Deletes a registration; the peer is told and holds it Cancelled',
        body: ZRegistrationDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await manageRegistrations.delete(request.body.id, (message) => request.log.warn(message));
      return {};
    },
  );
};
