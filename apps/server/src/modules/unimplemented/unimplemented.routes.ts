import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notImplemented } from '../../lib/app-error.js';

/**
 * Calls spec §7 names but marks unimplemented. They exist so a client gets the spec's answer,
 * 501 `functionNotImplemented`, instead of 404. The quality calls `data`, `failed` and `results`
 * are read as siblings of `qms/search` (`/ui/qms/data`, …), as the spec lists them together.
 * Like every route they need a session (and the role their permission row names) first.
 */
export const unimplementedRoutes = [
  { method: 'POST', url: '/ui/admin/blockchain/provider', tags: ['admin'] },
  { method: 'GET', url: '/ui/qms/search', tags: ['quality'] },
  { method: 'GET', url: '/ui/qms/parts/list', tags: ['quality'] },
  { method: 'GET', url: '/ui/qms/data', tags: ['quality'] },
  { method: 'GET', url: '/ui/qms/failed', tags: ['quality'] },
  { method: 'GET', url: '/ui/qms/results', tags: ['quality'] },
  { method: 'POST', url: '/ui/qms/parts/entry', tags: ['quality'] },
] as const;

export const unimplementedModuleRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const { method, url, tags } of unimplementedRoutes) {
    app.route({
      method,
      url,
      schema: {
        tags: [...tags],
        summary: 'Not implemented (spec §7): answers 501 functionNotImplemented',
        ...(method === 'POST' ? { body: z.unknown() } : {}),
      },
      handler: async () => {
        throw notImplemented();
      },
    });
  }
};
