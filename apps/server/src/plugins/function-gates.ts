import type { FastifyInstance } from 'fastify';
import { gateOf, gateTokens } from '@manifold/contract';
import { AppError } from '../lib/app-error.js';

/**
 * The one place that refuses the calls of a switched-off function or addon: the contract's
 * `routeGates` table names which routes belong to Manage, Trace or an addon; this hook (after
 * the session and role checks) answers `manageFunctionalityNotEnabled`,
 * `traceFuncitionalityNotEnabled` or `addonNotEnabled` when that gate is off. Routes outside the
 * table cost nothing; gated ones read the switches with one query.
 */
export function registerFunctionGates(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (!url) return;
    const gate = gateOf(url);
    if (gate === undefined) return;
    if (!(await app.services.serverSettings.isOpen(gate))) throw new AppError(gateTokens[gate]);
  });
}
