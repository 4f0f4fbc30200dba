import type { FastifyInstance } from 'fastify';
import { gateOf, gateTokens, type TGateName } from '@manifold/contract';
import { AppError } from '../lib/app-error.js';

/**
 * The one place that refuses the calls of a switched-off function or addon: the contract's
 * `routeGates` table names which routes belong to Manage, Trace or an addon; this hook (after
 * the session and role checks) answers `manageFunctionalityNotEnabled`,
 * `traceFuncitionalityNotEnabled` or `addonNotEnabled` when that gate is off. Routes outside the
 * table cost nothing (each route pattern's gate is looked up once); gated ones read the switches
 * with one query.
 */
export function registerFunctionGates(app: FastifyInstance): void {
  const gates = new Map<string, TGateName | null>();
  // a callback hook: the routes outside the table (most) go on without a promise
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.routeOptions.url;
    if (!url) return done();
    let gate = gates.get(url);
    if (gate === undefined) gates.set(url, (gate = gateOf(url) ?? null));
    if (gate === null) return done();
    app.services.serverSettings.isOpen(gate).then(
      (open) => done(open ? undefined : new AppError(gateTokens[gate])),
      (error: unknown) => done(error as Error),
    );
  });
}
