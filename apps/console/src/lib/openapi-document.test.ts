import { describe, expect, it } from 'vitest';
import { exampleOpenApiDocument as document } from '../test/openapi-document';
import {
  anchoredKey,
  groupByTag,
  type JsonSchema,
  operationAnchor,
  operationMatches,
  operationsOf,
  resolvePointer,
  summarizeSchema,
  typeLabel,
} from './openapi-document';

describe('operationsOf', () => {
  it('lists every operation with its access, token, parameters (references resolved), body and responses by status', () => {
    const operations = operationsOf(document);
    expect(operations.map((operation) => operation.key)).toEqual(['GET /ui/order/list', 'POST /ui/user/login', 'GET /healthz']);
    const list = operations[0]!;
    expect(list).toMatchObject({
      method: 'get',
      path: '/ui/order/list',
      access: 'anyRole',
      secured: true,
      deprecated: false,
      tags: ['orders'],
    });
    expect(list.parameters.map((parameter) => [parameter.in, parameter.name, parameter.required])).toEqual([
      ['query', 'pageNum', false],
      ['query', 'sortOrder', false],
    ]);
    expect(list.responses.map((response) => [response.status, response.description])).toEqual([
      ['200', 'Success'],
      ['420', 'One business error'],
    ]);
    const login = operations[1]!;
    expect(login.secured).toBe(false);
    expect(login.requestBody).toEqual({
      required: true,
      description: undefined,
      contents: [{ mediaType: 'application/json', schema: { $ref: '#/components/schemas/Login' } }],
    });
    expect(login.responses[0]!.contents).toEqual([]);
  });

  it('groups by the declared tags first, then the others alphabetically, the untagged under the given name', () => {
    const groups = groupByTag(document, operationsOf(document), 'other');
    expect(groups.map((group) => [group.tag, group.description, group.operations.map((operation) => operation.key)])).toEqual([
      ['orders', 'Licence orders', ['GET /ui/order/list']],
      ['other', undefined, ['GET /healthz']],
      ['user session', undefined, ['POST /ui/user/login']],
    ]);
  });

  it('matches a search by every word, in the method, path, summary or tags, ignoring case', () => {
    const [list] = operationsOf(document);
    expect(operationMatches(list!, '')).toBe(true);
    expect(operationMatches(list!, 'ORDER get')).toBe(true);
    expect(operationMatches(list!, 'paged orders')).toBe(true);
    expect(operationMatches(list!, 'order post')).toBe(false);
  });
});

describe('anchors', () => {
  it('name an operation in the address by its method and path, and read back its key, encoded or not', () => {
    expect(operationAnchor({ method: 'get', path: '/ui/order/list' })).toBe('get/ui/order/list');
    expect(anchoredKey('#get/ui/order/list')).toBe('GET /ui/order/list');
    expect(anchoredKey('post/ui/user/login')).toBe('POST /ui/user/login');
    expect(anchoredKey('#get/ui/device/image/%7Bname%7D')).toBe('GET /ui/device/image/{name}');
    for (const fragment of ['', '#', '#orders', '#GET/ui/order/list', '#get', '#fetch/ui/x', '#get/%E0%A4%A']) {
      expect(anchoredKey(fragment), fragment).toBeUndefined();
    }
  });
});

describe('schemas', () => {
  it('resolves local JSON pointers, escaped segments included, and nothing outside the document', () => {
    expect(resolvePointer(document, '#/components/schemas/Login')).toBe(document.components!.schemas!.Login);
    expect(resolvePointer({ openapi: '3.1.0', paths: { '/a/b': 1 } }, '#/paths/~1a~1b')).toBe(1);
    expect(resolvePointer(document, '#/components/schemas/Missing')).toBeUndefined();
    expect(resolvePointer(document, 'https://example.com/schema#/x')).toBeUndefined();
  });

  it('labels types: references by name, arrays, unions and nullable values', () => {
    expect(typeLabel(document, { $ref: '#/components/schemas/Order' })).toBe('Order');
    expect(typeLabel(document, { type: 'array', items: { $ref: '#/components/schemas/Order' } })).toBe('Order[]');
    expect(typeLabel(document, { type: ['string', 'null'] })).toBe('string | null');
    expect(typeLabel(document, { anyOf: [{ type: 'number' }, { type: 'string' }] })).toBe('number | string');
    expect(typeLabel(document, { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string' }] } })).toBe(
      '(number | string)[]',
    );
    expect(typeLabel(document, { enum: ['a', 'b'] })).toBe('string');
    expect(typeLabel(document, { const: null })).toBe('null');
    expect(typeLabel(document, true)).toBe('any');
    expect(typeLabel(document, undefined)).toBe('any');
  });

  it("summarises an object's fields, required ones marked, and an array by its items' fields", () => {
    const response = summarizeSchema(document, {
      type: 'array',
      items: { $ref: '#/components/schemas/Order' },
      maxItems: 100,
    });
    expect(response.type).toBe('Order[]');
    expect(response.description).toBe('A licence order');
    expect(response.constraints).toEqual([{ kind: 'itemCount', max: 100 }]);
    expect(response.fields.map((field) => [field.name, field.required])).toEqual([
      ['orderId', true],
      ['quantity', true],
      ['parent', false],
      ['labels', false],
    ]);
  });

  it("keeps a field's rules: format (a uuid's pattern left out), bounds other than the safe-integer ones, enum and default", () => {
    const order = document.components!.schemas!.Order as { properties: Record<string, JsonSchema> };
    expect(summarizeSchema(document, order.properties.orderId).constraints).toEqual([{ kind: 'format', value: 'uuid' }]);
    expect(summarizeSchema(document, order.properties.quantity).constraints).toEqual([{ kind: 'range', min: 1 }]);
    expect(
      summarizeSchema(document, { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }).constraints,
    ).toEqual([]);
    expect(summarizeSchema(document, { type: 'number', minimum: 0, exclusiveMaximum: 1 }).constraints).toEqual([
      { kind: 'range', min: 0, exclusiveMax: 1 },
    ]);
    expect(summarizeSchema(document, { type: 'string', enum: ['asc', 'desc'], default: 'asc' }).constraints).toEqual([
      { kind: 'enum', values: ['asc', 'desc'] },
      { kind: 'default', value: 'asc' },
    ]);
    const labels = summarizeSchema(document, order.properties.labels);
    expect(labels.constraints).toEqual([{ kind: 'keys', schema: { type: 'string', maxLength: 64 } }]);
    expect(labels.additional).toEqual({ type: 'string' });
    expect(summarizeSchema(document, { type: 'object' }).additional).toBe(true);
    expect(summarizeSchema(document, document.components!.schemas!.ErrorResponse as JsonSchema).additional).toBeUndefined();
  });

  it('shows a nullable reference by its fields, and marks a reference already open above as recursive', () => {
    const parent = summarizeSchema(document, { anyOf: [{ $ref: '#/components/schemas/Order' }, { type: 'null' }] });
    expect(parent.type).toBe('Order | null');
    expect(parent.refName).toBe('Order');
    expect(parent.fields).toHaveLength(4);
    const inside = summarizeSchema(document, { anyOf: [{ $ref: '#/components/schemas/Order' }, { type: 'null' }] }, ['Order']);
    expect(inside).toMatchObject({ type: 'Order | null', recursive: true, fields: [] });
    // an array of a component opens that component too
    expect(summarizeSchema(document, { type: 'array', items: { $ref: '#/components/schemas/Order' } }).opens).toEqual(['Order']);
    expect(summarizeSchema(document, { type: 'array', items: { $ref: '#/components/schemas/Order' } }, ['Order'])).toMatchObject({
      type: 'Order[]',
      recursive: true,
      fields: [],
    });
  });

  it('lists variants that are not plain types; plain ones are in the label alone', () => {
    expect(summarizeSchema(document, { anyOf: [{ type: 'number' }, { type: 'string' }] }).variants).toBeUndefined();
    const pageNum = summarizeSchema(document, { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+$' }] });
    expect(pageNum.type).toBe('number | string');
    expect(pageNum.variants).toEqual({ kind: 'anyOf', schemas: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+$' }] });
    expect(summarizeSchema(document, { allOf: [{ $ref: '#/components/schemas/Login' }] }).variants?.kind).toBe('allOf');
  });
});
