import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ZAuditListEntry, ZAuditListQuery, ZPage } from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';

/** The audit trail: read only (no route edits or deletes a record). */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  const { audit } = app.services;

  app.get(
    '/ui/audit/list',
    {
      schema: {
        tags: ['audit'],
        summary: 'Every audit record, newest first, with its wording (filters: kind, from, to, actor, subject)',
        querystring: ZAuditListQuery,
        response: responses(ZPage(ZAuditListEntry)),
      },
    },
    (request) => audit.list(request.query),
  );
};
