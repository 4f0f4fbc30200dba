import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ZEmpty,
  ZLoginRequest,
  ZLoginResponse,
  ZLoginThrottleClearRequest,
  ZLoginThrottleEntry,
  ZPage,
  ZPageQuery,
  ZRefreshResponse,
  ZSessionResponse,
} from '@manifold/contract';
import { callerOf } from '../../plugins/auth.js';
import { responses } from '../../lib/route-schemas.js';

export const sessionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { sessions } = app.services;
  const meta = (request: { ip: string; headers: { 'user-agent'?: string | undefined } }) => ({
    sourceIp: request.ip,
    userAgent: request.headers['user-agent'],
  });

  app.post(
    '/ui/user/login',
    { schema: { tags: ['session'], summary: 'Log in', body: ZLoginRequest, response: responses(ZLoginResponse) } },
    (request) => sessions.login(request.body, meta(request)),
  );

  app.get(
    '/ui/user/login',
    { schema: { tags: ['session'], summary: 'Session check', response: responses(ZSessionResponse) } },
    (request) => sessions.describe(callerOf(request)),
  );

  app.post(
    '/ui/user/refresh',
    { schema: { tags: ['session'], summary: 'A new session token', response: responses(ZRefreshResponse) } },
    (request) => sessions.refresh(callerOf(request), meta(request)),
  );

  app.post(
    '/ui/user/logout',
    { schema: { tags: ['session'], summary: 'End the session on the server', response: responses(ZEmpty) } },
    async (request) => {
      await sessions.logout(callerOf(request));
      return {};
    },
  );

  app.get(
    '/ui/admin/login-throttle',
    {
      schema: {
        tags: ['session'],
        summary: 'Failed-login counters that hold accounts or addresses back, busiest first',
        querystring: ZPageQuery,
        response: responses(ZPage(ZLoginThrottleEntry)),
      },
    },
    (request) => sessions.throttleList(request.query),
  );

  app.post(
    '/ui/admin/login-throttle/clear',
    {
      schema: {
        tags: ['session'],
        summary: 'Clear one failed-login counter (audited)',
        body: ZLoginThrottleClearRequest,
        response: responses(ZEmpty),
      },
    },
    async (request) => {
      await sessions.throttleClear(request.body, callerOf(request));
      return {};
    },
  );
};
