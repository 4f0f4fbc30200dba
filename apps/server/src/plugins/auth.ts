import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessOf, errorDescriptions, guardOf } from '@manifold/contract';
import { unauthorizedChallenge } from '../lib/app-error.js';
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
    .header('WWW-Authenticate', unauthorizedChallenge)
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
        : (request, reply, done) => {
            const check = checks.get(request.method);
            if (check) check(request, reply, done);
            else done();
          };
    route.onRequest = [hook, ...routeHooks(route.onRequest)];
  });
}

/**
 * A route's session check, as a callback hook: it calls `done` when the request may go on (with
 * an error to answer instead), or answers the request itself and does not. A session read that
 * answers at once (SQLite) lets the request go on in the same turn, with no promise in between.
 */
type SessionCheck = (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
type Done = (error?: Error) => void;

/**
 * The check of the permission table's row `key` (undefined: anyone may call): a live session
 * (401), the role (403), then the row's access-control constraint and its `sensitive` mark.
 */
function sessionCheck(app: FastifyInstance, key: string): SessionCheck | undefined {
  const access = accessOf(key);
  if (access === 'anonymous' || access === 'partner') return undefined;
  const guard = guardOf(key);
  const guarded = guard.constraint !== undefined || guard.sensitive === true;
  const checkGuard = async (caller: Caller) => {
    if (guard.constraint) await app.services.accessControl.require(caller, guard.constraint);
    if (guard.sensitive) await app.services.securityKeys.requireEscalation(caller);
  };
  const check: RowCheck = { access, guarded, checkGuard };
  return (request, reply, done) => {
    const token = bearerToken(request);
    if (!token) {
      unauthorized(reply);
      return;
    }
    let found: ReturnType<typeof app.services.sessions.authenticate>;
    try {
      found = app.services.sessions.authenticate(token, request.ip);
    } catch (error) {
      failed(done, error);
      return;
    }
    if (found instanceof Promise) {
      found.then(
        (caller) => admit(check, caller, request, reply, done),
        (error: unknown) => failed(done, error),
      );
    } else admit(check, found, request, reply, done);
  };
}

/** What a route's session check needs of its permission-table row. */
interface RowCheck {
  access: string | undefined;
  guarded: boolean;
  checkGuard: (caller: Caller) => Promise<void>;
}

// module functions rather than closures made per request (the dev runner names each closure it
// makes, which costs more than the check itself)
function admit(check: RowCheck, caller: Caller | undefined, request: FastifyRequest, reply: FastifyReply, done: Done): void {
  if (!caller) {
    unauthorized(reply);
    return;
  }
  if (check.access === 'admin' && caller.role !== 'ADMIN') {
    reply.status(403).send({ errorToken: 'actionNotAllowed', errorDescription: errorDescriptions.actionNotAllowed });
    return;
  }
  request.caller = caller;
  if (!check.guarded) done();
  else
    check.checkGuard(caller).then(
      () => done(),
      (error: unknown) => failed(done, error),
    );
}

/** A failure of the session read is answered as any error (500), never left unhandled. */
function failed(done: Done, error: unknown): void {
  done(error instanceof Error ? error : new Error(String(error)));
}

/** The caller of a route that needs a session (the auth hook has already ensured one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`route ${request.routeOptions.url} used callerOf without a session`);
  return request.caller;
}
