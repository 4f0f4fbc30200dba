import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessOf, errorDescriptions, guardOf } from '@manifold/contract';
import type { Caller } from '../lib/caller.js';
import { routeHooks } from './request-steps.js';

export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function unauthorized(reply: FastifyReply): FastifyReply {
  return reply
    .status(401)
    .header('WWW-Authenticate', 'Bearer')
    .send({ errorToken: 'invalidSessionToken', errorDescription: errorDescriptions.invalidSessionToken });
}

/**
 * The one place that enforces the contract's permission table (spec §6): every route must have
 * a row (the server does not start otherwise); a request without a live session gets 401, a
 * caller of the wrong role 403; a row's access-control constraint and its `sensitive` mark are
 * checked here too (403 `accessConstraintFailed`, `escalationRequired`).
 */
export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest('caller', undefined);

  // each route's check is worked out once, here, and runs as the route's own first hook: a
  // request pays for no table lookup, and a route anyone may call (anonymous, partner) for no hook
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const checks = new Map<string, SessionCheck>();
    for (const method of methods) {
      if (method !== 'HEAD' && method !== 'OPTIONS' && !accessOf(routeKey(method, route.url))) {
        throw new Error(`route ${method} ${route.url} has no row in the contract's permission table`);
      }
      const check = sessionCheck(app, routeKey(method, route.url));
      if (check) checks.set(method, check);
    }
    if (checks.size === 0) return;
    const hook: SessionCheck =
      methods.length === 1
        ? checks.values().next().value!
        : async (request, reply) => checks.get(request.method)?.(request, reply);
    route.onRequest = [hook, ...routeHooks(route.onRequest)];
  });
}

type SessionCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The check of the permission table's row `key` (undefined: anyone may call): a live session
 * (401), the role (403), then the row's access-control constraint and its `sensitive` mark.
 */
function sessionCheck(app: FastifyInstance, key: string): SessionCheck | undefined {
  const access = accessOf(key);
  if (access === 'anonymous' || access === 'partner') return undefined;
  const guard = guardOf(key);
  return async (request, reply) => {
    const token = bearerToken(request);
    if (!token) return unauthorized(reply);
    const caller = await app.services.sessions.authenticate(token, request.ip);
    if (!caller) return unauthorized(reply);
    if (access === 'admin' && caller.role !== 'ADMIN') {
      return reply.status(403).send({ errorToken: 'actionNotAllowed', errorDescription: errorDescriptions.actionNotAllowed });
    }
    request.caller = caller;
    // rows that ask more than a role (permissions.ts `GuardedAccess`): access controls, then escalation
    if (guard.constraint) await app.services.accessControl.require(caller, guard.constraint);
    if (guard.sensitive) await app.services.securityKeys.requireEscalation(caller);
  };
}

/** The caller of a route that needs a session (the auth hook has already ensured one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`route ${request.routeOptions.url} used callerOf without a session`);
  return request.caller;
}
