import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { gateOf, gateTokens } from '@manifold/contract';
import { AppError } from '../lib/app-error.js';
import { routeHooks } from './request-steps.js';

/**
 * The one place that refuses the calls of a switched-off function or addon: the contract's
 * `routeGates` table names which routes belong to Manage, Trace or an addon; this hook (after
 * the session and role checks) answers `manageFunctionalityNotEnabled`,
 * `traceFuncitionalityNotEnabled` or `addonNotEnabled` when that gate is off. Routes outside the
 * table cost nothing (each route's gate is looked up once, when it is added); gated ones read the
 * switches with one query.
 */
export function registerFunctionGates(app: FastifyInstance): void {
  // a gated route gets the check as its own hook, after the session check (auth.ts); any other
  // route gets none
  app.addHook('onRoute', (route) => {
    const gate = gateOf(route.url);
    if (gate === undefined) return;
    const check: onRequestHookHandler = (_request, _reply, done) => {
      app.services.serverSettings.isOpen(gate).then(
        (open) => done(open ? undefined : new AppError(gateTokens[gate])),
        (error: unknown) => done(error as Error),
      );
    };
    route.onRequest = [...routeHooks(route.onRequest), check];
  });
}
