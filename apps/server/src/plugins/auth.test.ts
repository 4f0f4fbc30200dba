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

describe('the session check', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close().catch(() => undefined);
    app = undefined;
  });

  const caller = (role: 'ADMIN' | 'USER') => ({
    userId: 1,
    username: 'u',
    role,
    sessionId: 's',
    escalated: false,
    escalatedUntil: null,
    sourceIp: '127.0.0.1',
  });

  /** The access-control constraints checked, in order. */
  let constraints: string[] = [];

  /** A server whose session read answers what `authenticate` gives for the token. */
  const serverWith = (authenticate: (token: string) => unknown) => {
    constraints = [];
    app = Fastify({ logger: false });
    const accessControl = { require: async (_caller: unknown, constraint: string) => void constraints.push(constraint) };
    app.decorate('services', { sessions: { authenticate }, accessControl } as never);
    registerAuth(app);
    void app.register(async (scope) => {
      scope.get('/ui/user/login', async (request) => ({ reached: request.caller?.username }));
      scope.get('/ui/admin/login-throttle', async () => ({ reached: true }));
    });
    return app;
  };
  const get = (url: string, token: string) => app!.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('lets the request on with the caller whether the session read answers at once or later', async () => {
    serverWith((token) => (token === 'now' ? caller('USER') : Promise.resolve(caller('USER'))));
    for (const token of ['now', 'later']) {
      const answer = await get('/ui/user/login', token);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ reached: 'u' });
    }
  });

  it('answers 401 without a live session and 403 to a user on an administrator’s route, at once or later', async () => {
    serverWith((token) => {
      const found = token.startsWith('none') ? undefined : caller('USER');
      return token.endsWith('later') ? Promise.resolve(found) : found;
    });
    for (const when of ['now', 'later']) {
      const none = await get('/ui/user/login', `none-${when}`);
      expect(none.statusCode).toBe(401);
      expect(none.json().errorToken).toBe('invalidSessionToken');
      const user = await get('/ui/admin/login-throttle', `user-${when}`);
      expect(user.statusCode).toBe(403);
      expect(user.json().errorToken).toBe('actionNotAllowed');
    }
  });

  it('answers 500 when the session read fails, thrown or rejected, and stays up', async () => {
    serverWith((token) => {
      if (token === 'throws') throw new Error('database gone');
      if (token === 'rejects') return Promise.reject(new Error('database gone'));
      return caller('ADMIN');
    });
    expect((await get('/ui/user/login', 'throws')).statusCode).toBe(500);
    expect((await get('/ui/user/login', 'rejects')).statusCode).toBe(500);
    expect((await get('/ui/admin/login-throttle', 'fine')).statusCode).toBe(200);
    expect(constraints).toEqual(['security-config']); // the route's row constraint, checked after the session
  });
});
