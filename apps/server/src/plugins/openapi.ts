import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accessOf } from '@manifold/contract';
import { routeKey } from './auth.js';

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate the requests; each
 * operation says who may call it (from the permission table) and needs a bearer token unless
 * the table says anonymous or partner.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const transform = createJsonSchemaTransform({ skipList: ['/*', '/console-config.json'] });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Manifold API',
        version: app.services.config.version,
        description:
          'Console API (/ui/…) and partner interfaces of a Manifold Manage server. Errors: 420 {errorToken, errorDescription}, ' +
          '418 {data: [errors]}, 400 malformed request, 401 no session, 403 wrong role, 404 unknown entity, 501 not implemented.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        parameters: {},
      },
    },
    transform(input) {
      const result = transform(input);
      const access = accessOf(routeKey(input.route.method.toString(), input.url));
      const schema = result.schema as Record<string, unknown>;
      const multipartForm = input.route.config?.multipartForm;
      return {
        ...result,
        schema: {
          ...schema,
          ...(multipartForm ? { body: z.toJSONSchema(multipartForm, { target: 'draft-2020-12', io: 'input' }) } : {}),
          ...(access === 'anonymous' || access === 'partner' ? {} : { security: [{ bearerAuth: [] }] }),
          ...(access ? { 'x-access': access } : {}),
        },
      };
    },
    transformObject: jsonSchemaTransformObject,
  });
}
