import Fastify, { type FastifyInstance } from 'fastify';
import type { ErrorToken } from '@manifold/contract';
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
