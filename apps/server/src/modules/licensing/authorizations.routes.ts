import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZAuthorization,
  ZAuthorizationListQuery,
  ZAuthorizationQuery,
  ZAuthorizationRevokeRequest,
  ZAuthorizationSendRequest,
  ZAuthorizationSendResponse,
  ZAuthorizeRequest,
  ZAuthorizeResponse,
  ZDtl,
  ZDtlListQuery,
  ZEnforceOrder,
  ZEnforceOrderListQuery,
  ZPage,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { callerOf } from '../../plugins/auth.js';

/** Authorizations: authorized, listed, sent, revoked, downloaded; what machines received. */
export const authorizationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { authorizations, authorizationDelivery } = app.services;
  const tags = ['authorizations'];

  app.post(
    '/ui/authorization/authorize',
    {
      schema: {
        tags,
        summary:
          'Hand part of an order to an approved machine or downstream Manage instance (every licence rule checked; all problems answered together)',
        body: ZAuthorizeRequest,
        response: responses(ZAuthorizeResponse),
      },
    },
    (request) => authorizations.authorize(request.body, callerOf(request)),
  );

  app.get(
    '/ui/authorization/list',
    {
      schema: {
        tags,
        summary: 'Authorizations, paged, with the order list\u2019s sorting and filters plus orderId and authorizationId',
        querystring: ZAuthorizationListQuery,
        response: responses(ZPage(ZAuthorization)),
      },
    },
    (request) => authorizations.list(request.query, callerOf(request)),
  );

  app.post(
    '/ui/authorization/send',
    {
      schema: {
        tags,
        summary: 'Send one authorization, or every live one of the order (no authorizationId, or sendAll true)',
        body: ZAuthorizationSendRequest,
        response: responses(ZAuthorizationSendResponse),
      },
    },
    (request) => authorizationDelivery.send(request.body, callerOf(request)),
  );

  app.post(
    '/ui/authorization/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an authorization; its quantity returns to the order',
        body: ZAuthorizationRevokeRequest,
        response: responses(ZAuthorization),
      },
    },
    (request) => authorizations.revoke(request.body, callerOf(request)),
  );

  app.get(
    '/ui/authorization/download',
    {
      schema: {
        tags,
        summary: 'The authorization as signed XML (enveloped XML-DSig), content keys wrapped for its recipient',
        querystring: ZAuthorizationQuery,
        produces: ['application/xml'],
      },
    },
    async (request, reply) => {
      const xml = await authorizations.download(request.query, callerOf(request));
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="authorization-${request.query.authorizationId}.xml"`)
        .send(xml);
    },
  );

  app.get(
    '/ui/enforce/order/list',
    {
      schema: {
        tags,
        summary: 'Authorizations sent to machines (Enforce) with their state, newest first',
        querystring: ZEnforceOrderListQuery,
        response: responses(ZPage(ZEnforceOrder)),
      },
    },
    (request) => authorizations.enforceList(request.query, callerOf(request)),
  );

  app.get(
    '/ui/dtl/list',
    {
      schema: {
        tags,
        summary: 'Machine data licences, newest first',
        querystring: ZDtlListQuery,
        response: responses(ZPage(ZDtl)),
      },
    },
    (request) => authorizations.dtlList(request.query, callerOf(request)),
  );
};
