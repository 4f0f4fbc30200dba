import type { FastifyReply } from 'fastify';
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
  formatPath,
} from '@manifold/contract';
import { AppError } from '../../lib/app-error.js';
import { identifierErrors } from '../../lib/identifier-errors.js';
import { responses } from '../../lib/route-schemas.js';
import type { StpCaller } from './stp.service.js';

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

  /**
   * One pull: the envelope's `body` is checked against `bodySchema` (before the nonce is spent),
   * then the envelope's signature for this path; `handle` gets the verified machine and the body.
   */
  function pull<TBody extends z.ZodType, TResponse extends z.ZodType = z.ZodNever>(
    path: string,
    docs: { summary: string; response?: TResponse; produces?: string[] },
    bodySchema: TBody,
    handle: (caller: StpCaller, input: z.infer<TBody>, reply: FastifyReply) => Promise<z.infer<TResponse> | FastifyReply>,
  ) {
    app.post(
      path,
      {
        schema: {
          tags: ['stp'],
          summary: docs.summary,
          body: ZStpEnvelope,
          ...(docs.response ? { response: responses(docs.response) } : {}),
          ...(docs.produces ? { produces: docs.produces } : {}),
        },
      },
      async (request, reply) => {
        const input = bodyOf(bodySchema, request.body.body);
        return handle(await stp.verify(request.body, path, request.ip), input, reply);
      },
    );
  }

  pull(
    '/stp/order/list',
    { summary: 'Orders the machine holds live authorizations of (body: pageNum, numberOfItems)', response: ZPage(ZStpOrder) },
    ZStpPageBody,
    (caller, page) => stp.orders(caller, page),
  );

  pull(
    '/stp/authorization/list',
    {
      summary: 'The machine\u2019s sent authorizations, live and revoked, not expired (body: pageNum, numberOfItems)',
      response: ZPage(ZStpAuthorization),
    },
    ZStpPageBody,
    (caller, page) => stp.authorizationList(caller, page),
  );

  pull(
    '/stp/authorization/download',
    { summary: 'The signed authorization XML (body: authorizationId); marks it received', produces: ['application/xml'] },
    ZStpAuthorizationBody,
    async (caller, { authorizationId }, reply) => {
      const xml = await stp.downloadAuthorization(caller, authorizationId);
      return reply.type('application/xml; charset=utf-8').send(xml);
    },
  );

  pull(
    '/stp/design/download',
    {
      summary: 'One file of the authorized design revision as stored; private files encrypted (body: authorizationId, fileId)',
      produces: ['application/octet-stream'],
    },
    ZStpDesignBody,
    async (caller, input, reply) => {
      const file = await stp.downloadDesign(caller, input);
      return reply
        .type('application/octet-stream')
        .header('x-manifold-encrypted', String(file.encrypted))
        .header('x-manifold-sha256', file.sha256)
        .send(file.stream);
    },
  );

  pull(
    '/stp/upload/token',
    { summary: 'A one-time token for a later upload (body: authorizationId?, purpose dtl|event)', response: ZStpUploadToken },
    ZStpUploadTokenBody,
    (caller, input) => stp.uploadToken(caller, input),
  );
};
