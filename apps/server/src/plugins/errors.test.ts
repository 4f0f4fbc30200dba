import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { ZOrderId, type ErrorToken } from '@manifold/contract';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, errorStatus } from '../lib/app-error.js';
import { registerErrorHandling } from './errors.js';

/** The 401 tokens (`errorStatus`): raised by a service, not by the auth plugin's session check. */
const unauthorizedTokens = Object.entries(errorStatus)
  .filter(([, status]) => status === 401)
  .map(([token]) => token as ErrorToken);

describe('the error handler', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.get<{ Params: { token: ErrorToken } }>('/raise/:token', async (request) => {
      throw new AppError(request.params.token);
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers every 401 with the WWW-Authenticate challenge the session check sends (RFC 9110 §15.5.2)', async () => {
    expect(unauthorizedTokens).toContain('invalidSessionToken');
    for (const token of unauthorizedTokens) {
      const answer = await app.inject({ method: 'GET', url: `/raise/${token}` });
      expect(answer.statusCode, token).toBe(401);
      expect(answer.json(), token).toMatchObject({ errorToken: token });
      expect(answer.headers['www-authenticate'], token).toBe('Bearer');
    }
  });

  it('sends no challenge with an answer that is not a 401', async () => {
    for (const token of ['actionNotAllowed', 'malformedRequest', 'usernameEmpty'] as const) {
      const answer = await app.inject({ method: 'GET', url: `/raise/${token}` });
      expect(answer.statusCode, token).not.toBe(401);
      expect(answer.headers['www-authenticate'], token).toBeUndefined();
    }
  });
});

describe('a request its schema refuses', () => {
  const body = z
    .object({
      name: z.string().max(8),
      url: z.url().optional(),
      orderId: ZOrderId.optional(),
      credentials: z
        .object({ endpoint: z.string().max(8).optional() })
        .strict()
        .optional(),
      items: z.array(z.object({ code: z.string().max(4) })).optional(),
    })
    .strict();
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    app.setValidatorCompiler(validatorCompiler);
    registerErrorHandling(app);
    app.post('/things', { schema: { body } }, async () => ({ ok: true }));
    app.post('/lists', { schema: { body: z.array(z.object({ code: z.string().max(4) })) } }, async () => ({ ok: true }));
    app.get('/things', { schema: { querystring: z.object({ page: z.string().regex(/^\d+$/) }) } }, async () => ({ ok: true }));
    app.get('/things/:id', { schema: { params: z.object({ id: z.string().max(4) }) } }, async () => ({ ok: true }));
    app.get('/headed', { schema: { headers: z.object({ 'x-thing': z.string().max(4) }) } }, async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object });

  it('answers 400 malformedRequest naming the body property at fault', async () => {
    const answer = await post('/things', { name: 'Ada', url: 'not a url' });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ errorToken: 'malformedRequest', errorDescription: 'body/url: Invalid URL', field: 'url' });
  });

  it('names a nested property by its path as business errors do: dots between properties, list items by index', async () => {
    const nested = await post('/things', { name: 'Ada', credentials: { endpoint: 'far too long' } });
    expect(nested.statusCode).toBe(400);
    expect(nested.json()).toMatchObject({ errorToken: 'malformedRequest', field: 'credentials.endpoint' });
    const item = await post('/things', { name: 'Ada', items: [{ code: 'ok' }, { code: 'too long' }] });
    expect(item.statusCode).toBe(400);
    expect(item.json()).toMatchObject({ errorToken: 'malformedRequest', field: 'items[1].code' });
    // an unknown property inside a property: the failure is that property's
    const unknownInside = await post('/things', { name: 'Ada', credentials: { endpoint: 'x', region: 'eu' } });
    expect(unknownInside.statusCode).toBe(400);
    expect(unknownInside.json()).toMatchObject({ errorToken: 'malformedRequest', field: 'credentials' });
  });

  it('names the first field of several at fault and still lists them all', async () => {
    const answer = await post('/things', { name: 'far too long', url: 'not a url' });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      errorToken: 'malformedRequest',
      errorDescription: 'body/name: Too big: expected string to have <=8 characters; body/url: Invalid URL',
      field: 'name',
    });
  });

  it('names no field when the body as a whole is at fault', async () => {
    for (const [url, payload] of [
      ['/things', ['not', 'an', 'object']],
      ['/things', { name: 'Ada', unknown: true }],
      ['/lists', [{ code: 'too long' }]],
    ] as const) {
      const answer = await post(url, payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
      expect(answer.json(), JSON.stringify(payload)).toMatchObject({ errorToken: 'malformedRequest' });
      expect(answer.json(), JSON.stringify(payload)).not.toHaveProperty('field');
    }
  });

  it('names no field when the querystring, the path or the headers are at fault', async () => {
    for (const [url, headers, where] of [
      ['/things?page=x', {}, 'querystring/page'],
      ['/things/toolong', {}, 'params/id'],
      ['/headed', { 'x-thing': 'toolong' }, 'headers/x-thing'],
    ] as const) {
      const answer = await app.inject({ method: 'GET', url, headers });
      expect(answer.statusCode, url).toBe(400);
      const sent = answer.json<Record<string, unknown>>();
      expect(sent.errorToken, url).toBe('malformedRequest');
      expect(sent.errorDescription, url).toContain(where);
      expect(sent, url).not.toHaveProperty('field');
    }
  });

  it('answers a malformed identifier with its own token naming the field, as before', async () => {
    const answer = await post('/things', { name: 'Ada', orderId: 'not-an-id' });
    expect(answer.statusCode).toBe(420);
    expect(answer.json()).toMatchObject({ errorToken: 'orderIdNotValid', field: 'orderId' });
  });
});
