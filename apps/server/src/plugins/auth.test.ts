import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerAuth } from './auth.js';

/** The start-up check of `registerAuth`: the server does not start with a route the permission table lacks. */
describe('the permission table check at start-up', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close().catch(() => undefined);
    app = undefined;
  });

  const appWith = (routes: (scope: FastifyInstance) => void) => {
    app = Fastify({ logger: false });
    registerAuth(app);
    void app.register(async (scope) => routes(scope));
    return app;
  };

  it('refuses to start with a route that has no row', async () => {
    const server = appWith((scope) => {
      scope.get('/healthz', async () => ({ status: 'ok' }));
      scope.post('/ui/no/such/row', async () => ({}));
    });
    await expect(server.ready()).rejects.toThrow("route POST /ui/no/such/row has no row in the contract's permission table");
  });

  it('checks each method of a route: a row for GET does not cover POST', async () => {
    const server = appWith((scope) => {
      scope.route({ method: ['GET', 'POST'], url: '/ui/version', handler: async () => ({}) });
    });
    await expect(server.ready()).rejects.toThrow('route POST /ui/version has no row');
  });

  it('starts when every route has a row (HEAD follows its GET)', async () => {
    const server = appWith((scope) => {
      scope.get('/healthz', async () => ({ status: 'ok' }));
      scope.post('/ui/user/login', async () => ({}));
      scope.get('/ui/package/image/:image', async () => ({}));
    });
    await expect(server.ready()).resolves.toBeDefined();
  });

  it('asks a session of the routes whose row needs one, their HEAD included, and of no other', async () => {
    const server = appWith((scope) => {
      scope.get('/healthz', async () => ({ status: 'ok' }));
      scope.get('/ui/user/login', async () => ({ reached: true }));
      scope.post('/ui/user/login', async () => ({ reached: true }));
    });
    const answers = await Promise.all([
      server.inject({ method: 'GET', url: '/ui/user/login' }),
      server.inject({ method: 'HEAD', url: '/ui/user/login' }),
      server.inject({ method: 'GET', url: '/ui/user/login', headers: { authorization: 'Basic x' } }),
      server.inject({ method: 'POST', url: '/ui/user/login', payload: {} }),
      server.inject({ method: 'GET', url: '/healthz' }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 401, 200, 200]);
    expect(answers[0]!.json()).toEqual({ errorToken: 'invalidSessionToken', errorDescription: expect.any(String) });
    expect(answers[0]!.headers['www-authenticate']).toBe('Bearer');
    expect(answers[3]!.json()).toEqual({ reached: true });
  });
});
