import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import {
  ZPage,
  ZStpAuthorization,
  ZStpAuthorizationBody,
  ZStpDesignBody,
  ZStpEnvelope,
  ZStpOrder,
  ZStpPageBody,
  ZStpUploadToken,
  ZStpUploadTokenBody,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { identifierErrors } from '../../lib/identifier-errors.js';
import { responses } from '../../lib/route-schemas.js';
import { formatPath } from '../packages/device-parameters.js';

/**
 * The envelope's `body` against the endpoint's schema; checked before the nonce is spent. A
 * malformed identifier answers its token (see `identifierErrors`), anything else 400.
 */
function bodyOf<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const identifiers = identifierErrors(
      schema,
      parsed.error.issues.map((issue) => issue.path),
      'body',
    );
    if (identifiers) throw identifiers;
    const issue = parsed.error.issues[0]!;
    const field = formatPath(issue.path, 'body');
    throw new AppError('malformedRequest', { field, description: `${field}: ${issue.message}` });
  }
  return parsed.data;
}

/** Machine pulls (spec §7 STP): every request is a signed envelope (contract `ZStpEnvelope`). */
export const stpRoutes: FastifyPluginAsyncZod = async (app) => {
  const { stp } = app.services;
  const tags = ['stp'];

  app.post(
    '/stp/order/list',
    {
      schema: {
        tags,
        summary: 'Orders the machine holds live authorizations of (body: pageNum, numberOfItems)',
        body: ZStpEnvelope,
        response: responses(ZPage(ZStpOrder)),
      },
    },
    async (request) => {
      const page = bodyOf(ZStpPageBody, request.body.body);
      return stp.orders(await stp.verify(request.body, '/stp/order/list', request.ip), page);
    },
  );

  app.post(
    '/stp/authorization/list',
    {
      schema: {
        tags,
        summary: 'The machine\u2019s sent authorizations, live and revoked, not expired (body: pageNum, numberOfItems)',
        body: ZStpEnvelope,
        response: responses(ZPage(ZStpAuthorization)),
      },
    },
    async (request) => {
      const page = bodyOf(ZStpPageBody, request.body.body);
      return stp.authorizationList(await stp.verify(request.body, '/stp/authorization/list', request.ip), page);
    },
  );

  app.post(
    '/stp/authorization/download',
    {
      schema: {
        tags,
        summary: 'The signed authorization XML (body: authorizationId); marks it received',
        body: ZStpEnvelope,
        produces: ['application/xml'],
      },
    },
    async (request, reply) => {
      const { authorizationId } = bodyOf(ZStpAuthorizationBody, request.body.body);
      const caller = await stp.verify(request.body, '/stp/authorization/download', request.ip);
      const xml = await stp.downloadAuthorization(caller, authorizationId);
      return reply.type('application/xml; charset=utf-8').send(xml);
    },
  );

  app.post(
    '/stp/design/download',
    {
      schema: {
        tags,
        summary: 'One file of the authorized design revision as stored; private files encrypted (body: authorizationId, fileId)',
        body: ZStpEnvelope,
        produces: ['application/octet-stream'],
      },
    },
    async (request, reply) => {
      const input = bodyOf(ZStpDesignBody, request.body.body);
      const caller = await stp.verify(request.body, '/stp/design/download', request.ip);
      const file = await stp.downloadDesign(caller, input);
      return reply
        .type('application/octet-stream')
        .header('x-manifold-encrypted', String(file.encrypted))
        .header('x-manifold-sha256', file.sha256)
        .send(file.stream);
    },
  );

  app.post(
    '/stp/upload/token',
    {
      schema: {
        tags,
        summary: 'A one-time token for a later upload (body: authorizationId?, purpose dtl|event)',
        body: ZStpEnvelope,
        response: responses(ZStpUploadToken),
      },
    },
    async (request) => {
      const input = bodyOf(ZStpUploadTokenBody, request.body.body);
      return stp.uploadToken(await stp.verify(request.body, '/stp/upload/token', request.ip), input);
    },
  );
};
