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
    transformObject: (document) => withResponseDescriptions(withReachedSchemasOnly(jsonSchemaTransformObject(document))),
  });
}

const schemaRef = '#/components/schemas/';

/** What each status of the console's and partners' answers means (spec §8), for the document's responses. */
export const responseDescriptions: Readonly<Record<string, string>> = {
  '200': 'Success',
  '400': 'Malformed request: a parameter or field fails its schema ({errorToken, errorDescription, field})',
  '401': 'No valid session token, or a partner credential (signature, upload token) that does not verify',
  '403': "The caller's role may not make this call",
  '406': 'A search this call cannot answer (an unknown sort field or too long a period)',
  '413': 'The upload is larger than its limit (payloadTooLarge)',
  '418': 'Several business errors: {data: [{errorToken, errorDescription, field}]}',
  '420': 'One business error: {errorToken, errorDescription}',
  '501': 'Not implemented by this server (functionNotImplemented)',
};

/**
 * The document with each response described by what its status means: the generator names every
 * response "Default Response", as no route describes its statuses one by one.
 */
function withResponseDescriptions<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>> })
    .paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const description = responseDescriptions[status];
        if (description && (!response.description || response.description === 'Default Response'))
          response.description = description;
      }
    }
  }
  return document;
}

/**
 * The document with only the component schemas its operations reach, each without `$schema` and
 * `$id`. The zod type provider lists every registered schema, in its input and its output shape
 * both, so about half were referenced by nothing (538 kB of document with them, 375 kB without; the
 * console's API reference resolves the whole document before it shows anything); and each
 * carried `$id: "#/components/schemas/Name"`, a bare fragment, which JSON Schema 2020-12 does not
 * allow as an identifier. References are JSON pointers into `components`, which need neither.
 */
function withReachedSchemasOnly<T>(document: T): T {
  const { paths, components } = document as { paths?: unknown; components?: { schemas?: Record<string, object> } };
  const schemas = components?.schemas;
  if (!schemas) return document;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(schemaRef)) {
        const name = value.slice(schemaRef.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(paths);
  const kept = Object.entries(schemas)
    .filter(([name]) => reached.has(name))
    .map(([name, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
      return [name, rest];
    });
  return { ...document, components: { ...components, schemas: Object.fromEntries(kept) } };
}
