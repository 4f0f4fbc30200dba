import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from './errors.js';
import { assertCarryableText, registerInputHygiene } from './input-hygiene.js';

describe('NUL in a request', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    registerErrorHandling(app);
    registerInputHygiene(app);
    app.post('/echo/:name', async (request) => request.body);
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (body: unknown, url = '/echo/x') =>
    app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

  it('names the body property that holds it, nested by dots and list items by [n], as a refused property is named', async () => {
    for (const [body, field] of [
      [{ username: 'admin\u0000' }, 'username'],
      [{ credentials: { region: 'eu\u0000' } }, 'credentials.region'],
      [{ data: [{ name: 'a' }, { name: 'b\u0000' }] }, 'data[1].name'],
      [{ tags: ['a', '\u0000'] }, 'tags[1]'],
    ] as const) {
      const answer = await post(body);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({
        errorToken: 'malformedRequest',
        errorDescription: `${field} contains a NUL character`,
        field,
      });
    }
  });

  it('names no field when it is in the query string, a path parameter, or a body that is no object', async () => {
    for (const [answer, where] of [
      [await post({ name: 'a' }, '/echo/x?search=%00'), 'querystring.search'],
      [await post({ name: 'a' }, '/echo/a%00b'), 'params.name'],
      [await post('a\u0000b'), 'body'],
      [await post(['a\u0000b']), '[0]'],
    ] as const) {
      expect(answer.statusCode, where).toBe(400);
      expect(answer.json(), where).toEqual({
        errorToken: 'malformedRequest',
        errorDescription: `${where} contains a NUL character`,
      });
    }
  });

  it('names the field of JSON a route reads itself, under the name it gives', () => {
    expect(() => assertCarryableText({ manifest: { designName: 'B\u0000' } }, 'design')).toThrow(
      expect.objectContaining({ token: 'malformedRequest', field: 'design.manifest.designName' }),
    );
    expect(() => assertCarryableText('a\u0000b')).toThrow(
      expect.objectContaining({ token: 'malformedRequest', field: undefined, message: 'body contains a NUL character' }),
    );
  });
});
