import type { OpenApiDocument } from '../lib/openapi-document';

const error = { $ref: '#/components/schemas/ErrorResponse' };

/** A small OpenAPI 3.1 document with what the API reference reads: tags, references, a nullable recursive field, bounds. */
export const exampleOpenApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'Manifold API', version: '1.2.3' },
  tags: [{ name: 'orders', description: 'Licence orders' }],
  paths: {
    '/ui/order/list': {
      get: {
        summary: 'Orders, paged',
        tags: ['orders'],
        'x-access': 'anyRole',
        security: [{ bearerAuth: [] }],
        parameters: [
          { in: 'query', name: 'pageNum', schema: { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+$' }] } },
          { $ref: '#/components/parameters/SortOrder' },
        ],
        responses: {
          '420': { description: 'One business error', content: { 'application/json': { schema: error } } },
          '200': {
            description: 'Success',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: { type: 'array', items: { $ref: '#/components/schemas/Order' }, maxItems: 100 },
                    totalNumOfPages: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
                  },
                  required: ['data'],
                  additionalProperties: false,
                },
              },
            },
          },
        },
      },
    },
    '/ui/user/login': {
      post: {
        summary: 'Log in',
        tags: ['user session'],
        'x-access': 'anonymous',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Login' } } } },
        responses: { '200': { description: 'Success' } },
      },
    },
    '/healthz': { get: { responses: { '200': { description: 'Up' } } } },
  },
  components: {
    parameters: {
      SortOrder: {
        in: 'query',
        name: 'sortOrder',
        required: false,
        schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
      },
    },
    schemas: {
      ErrorResponse: {
        type: 'object',
        properties: { errorToken: { type: 'string' }, errorDescription: { type: 'string' } },
        required: ['errorToken', 'errorDescription'],
      },
      Order: {
        type: 'object',
        description: 'A licence order',
        properties: {
          orderId: { type: 'string', format: 'uuid', pattern: '^[0-9a-f-]+$' },
          quantity: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
          parent: { anyOf: [{ $ref: '#/components/schemas/Order' }, { type: 'null' }] },
          labels: { type: 'object', propertyNames: { type: 'string', maxLength: 64 }, additionalProperties: { type: 'string' } },
        },
        required: ['orderId', 'quantity'],
      },
      Login: {
        type: 'object',
        properties: { username: { type: 'string', minLength: 1, maxLength: 128 }, password: { type: 'string', writeOnly: true } },
        required: ['username', 'password'],
      },
    },
  },
};
