import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  manageTypes,
  ZEmpty,
  ZManageAddRequest,
  ZManageInstance,
  ZManageListQuery,
  ZPage,
  ZPageQuery,
  ZRegistrationApproveRequest,
  ZRegistrationDeleteRequest,
  ZTraceAddRequest,
  ZTraceInstance,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import type { PeerRelation } from './peer-registrations.service.js';
import { toManageInstance, toTraceInstance } from './registration-views.js';

const traceOnly: readonly PeerRelation[] = ['trace'];

/** `/ui/manage/*` (Manage instances upstream and downstream) and `/ui/trace/*` (Trace instances). */
export const peerRegistrationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { peerRegistrations } = app.services;
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
      return peerRegistrations.list(page, registrationType === 'all' ? manageTypes : [registrationType], toManageInstance);
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
    async (request) =>
      toManageInstance(await peerRegistrations.add(request.body.registrationType, request.body.manageUrl, 'manageUrl')),
  );

  app.post(
    '/ui/manage/approve',
    {
      schema: {
        tags,
        summary: 'Approves (approve: true) or rejects a registration a Manage peer asked for; the peer is told first',
        body: ZRegistrationApproveRequest,
        response: responses(ZManageInstance),
      },
    },
    async (request) => toManageInstance(await peerRegistrations.approve(manageTypes, request.body)),
  );

  app.post(
    '/ui/manage/delete',
    {
      schema: {
        tags,
        summary: 'Deletes a Manage registration; the peer is told and holds it Cancelled',
        body: ZRegistrationDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await peerRegistrations.delete(manageTypes, request.body.id);
      return {};
    },
  );

  app.get(
    '/ui/trace/list',
    {
      schema: {
        tags,
        summary: 'Trace instances: those this instance reports to, and instances that asked to report to it',
        querystring: ZPageQuery,
        response: responses(ZPage(ZTraceInstance)),
      },
    },
    (request) => peerRegistrations.list(request.query, traceOnly, toTraceInstance),
  );

  app.post(
    '/ui/trace/add',
    {
      schema: {
        tags,
        summary:
          'Registers with a Trace instance (certificates exchanged, signed registration with aplType trace); Pending until it approves',
        body: ZTraceAddRequest,
        response: responses(ZTraceInstance),
      },
    },
    async (request) => toTraceInstance(await peerRegistrations.add('trace', request.body.traceUrl, 'traceUrl')),
  );

  app.post(
    '/ui/trace/approve',
    {
      schema: {
        tags,
        summary: 'Approves (approve: true) or rejects a registration an instance asked for; it is told first',
        body: ZRegistrationApproveRequest,
        response: responses(ZTraceInstance),
      },
    },
    async (request) => toTraceInstance(await peerRegistrations.approve(traceOnly, request.body)),
  );

  app.post(
    '/ui/trace/delete',
    {
      schema: {
        tags,
        summary: 'Deletes a Trace registration; the peer is told and holds it Cancelled',
        body: ZRegistrationDeleteRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await peerRegistrations.delete(traceOnly, request.body.id);
      return {};
    },
  );
};
