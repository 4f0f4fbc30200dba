import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { accessOf, permissions } from '@manifold/contract';
import { unimplementedRoutes } from '../src/modules/unimplemented/unimplemented.routes.js';
import { responseDescriptions } from '../src/plugins/openapi.js';
import { serverUrl } from './helpers/database-servers.js';
import { describeEachDatabase, expectToken } from './helpers/test-app.js';

describeEachDatabase('admin and operations', (ctx) => {
  describe('GET /ui/admin/state', () => {
    it('needs no session and reports the first incomplete step', async () => {
      const response = await ctx().call('GET', '/ui/admin/state');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ step: 'crypto' });
    });

    it('moves on as the steps are completed', async () => {
      const { SettingsRepository } = await import('../src/modules/settings/settings.repository.js');
      const { setupSettingKeys } = await import('../src/modules/admin/setup-state.js');
      const { db } = ctx().app.services.database;
      const settings = new SettingsRepository(db);
      const now = new Date();
      const keyPair = (purpose: string) => ({
        purpose,
        key_type: 'EC',
        public_key_pem: 'stand-in',
        sealed_private_key: 'stand-in',
        generation: 1,
        created_at: now.toISOString(),
      });
      const certificate = (purpose: string, notAfter: Date) => ({
        purpose,
        certificate_pem: 'stand-in',
        subject: 'CN=x',
        issuer: 'CN=ca',
        serial_number: '01',
        not_before: new Date(now.getTime() - 60_000).toISOString(),
        not_after: notAfter.toISOString(),
        fingerprint_sha256: 'AA',
        trust_anchor_fingerprint: 'BB',
        development: 0,
        installed_at: now.toISOString(),
      });
      const nextYear = new Date(now.getTime() + 365 * 86_400_000);
      await db.insertInto('server_key_pairs').values(keyPair('signing')).execute();
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'crypto' });
      await db.insertInto('server_key_pairs').values(keyPair('encryption')).execute();
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'signCert' });
      await db
        .insertInto('server_certificates')
        .values(certificate('signing', new Date(now.getTime() - 1000)))
        .execute();
      expect((await ctx().call('GET', '/ui/admin/state')).json(), 'an expired certificate does not count').toEqual({
        step: 'signCert',
      });
      await db.deleteFrom('server_certificates').execute();
      await db.insertInto('server_certificates').values(certificate('signing', nextYear)).execute();
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'cryptCert' });
      await db.insertInto('server_certificates').values(certificate('encryption', nextYear)).execute();
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'configuration' });
      await settings.set(setupSettingKeys.serverConfiguration, '{}');
      await settings.set(setupSettingKeys.storageProvider, '{}');
      expect((await ctx().call('GET', '/ui/admin/state')).json()).toEqual({ step: 'login' });
      await db.deleteFrom('server_certificates').execute();
      await db.deleteFrom('server_key_pairs').execute();
      await db.deleteFrom('settings').where('key', 'in', ['server.configuration', 'storage.provider']).execute();
    });
  });

  describe('GET /ui/version', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/version')).statusCode).toBe(401);
    });
    it("answers this program's version as traceVersion while Trace is on here (the default), null when it is off", async () => {
      const { SettingsRepository } = await import('../src/modules/settings/settings.repository.js');
      const { traceEnabledSettingKey } = await import('../src/modules/admin/trace-version.js');
      const settings = new SettingsRepository(ctx().app.services.database.db);
      const { token } = await ctx().createUser();
      try {
        expect((await ctx().call('GET', '/ui/version', { token })).json()).toEqual({
          manageVersion: '0.1.0',
          traceVersion: '0.1.0',
        });
        await settings.set(traceEnabledSettingKey, 'false');
        expect((await ctx().call('GET', '/ui/version', { token })).json()).toEqual({
          manageVersion: '0.1.0',
          traceVersion: null,
        });
        await ctx().app.services.database.db.deleteFrom('settings').where('key', '=', traceEnabledSettingKey).execute();
        expect((await ctx().call('GET', '/ui/version', { token })).json(), 'an absent switch is on').toEqual({
          manageVersion: '0.1.0',
          traceVersion: '0.1.0',
        });
      } finally {
        await settings.set(traceEnabledSettingKey, 'true');
      }
    });
  });

  describe('GET /ui/admin/database', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/admin/database')).statusCode).toBe(401);
    });
    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      expect((await ctx().call('GET', '/ui/admin/database', { token })).statusCode).toBe(403);
    });
    it('reports the running database without a password', async () => {
      const response = await ctx().call('GET', '/ui/admin/database', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['databaseHost', 'databaseName', 'databasePort', 'databaseType', 'databaseUser']);
      expect(body.databaseType).toBe(ctx().kind);
      if (ctx().kind !== 'sqlite') {
        // the suite's server is on loopback TCP or, when it answers there, on its Unix socket (helpers/database-servers.ts)
        const url = new URL(serverUrl(ctx().kind as 'postgres' | 'mysql'));
        const socket = url.searchParams.get(ctx().kind === 'postgres' ? 'host' : 'socketPath');
        expect(body).toMatchObject(
          socket
            ? { databaseHost: socket, databasePort: null }
            : { databaseHost: url.hostname, databasePort: Number(url.port) || (ctx().kind === 'postgres' ? 5432 : 3306) },
        );
        expect(body.databaseName).toMatch(/^manifold_test_/);
        expect(body.databaseUser).toBe(decodeURIComponent(url.username));
      }
    });
  });

  describe('POST /ui/admin/database', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('POST', '/ui/admin/database', { body: {} })).statusCode).toBe(401);
    });
    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      expectToken(await ctx().call('POST', '/ui/admin/database', { token, body: {} }), 403, 'actionNotAllowed');
    });
    it('answers 501 functionNotImplemented, as the spec marks it', async () => {
      const response = await ctx().call('POST', '/ui/admin/database', {
        token: await ctx().adminToken(),
        body: { databaseType: 'mysql' },
      });
      expect(response.statusCode).toBe(501);
      expect(response.json()).toMatchObject({ errorToken: 'functionNotImplemented' });
    });
  });

  describe('GET /ui/admin/api-spec', () => {
    it('should require authentication', async () => {
      expect((await ctx().call('GET', '/ui/admin/api-spec')).statusCode).toBe(401);
    });
    it('is for ADMIN only', async () => {
      const { token } = await ctx().createUser();
      expectToken(await ctx().call('GET', '/ui/admin/api-spec', { token }), 403, 'actionNotAllowed');
    });
    it('is an OpenAPI 3.1 document covering every API route of the permission table', async () => {
      const response = await ctx().call('GET', '/ui/admin/api-spec', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      const document = response.json();
      expect(document.openapi).toBe('3.1.0');
      const documented = new Set<string>();
      for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
        for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`);
      }
      const apiRoutes = Object.keys(permissions)
        .filter((key) => !['GET /*', 'GET /console-config.json'].includes(key))
        .map((key) => key.replace(/:(\w+)/g, '{$1}')); // OpenAPI writes path parameters as {name}
      expect(apiRoutes.filter((key) => !documented.has(key))).toEqual([]);
      expect(document.paths['/ui/user/add'].post.requestBody.content['application/json'].schema).toBeTruthy();
      expect(document.paths['/ui/user/add'].post.security).toEqual([{ bearerAuth: [] }]);
      expect(document.paths['/ui/user/login'].post.security).toBeUndefined();
    });
    it('lists only the component schemas its operations reach, without $id or $schema', async () => {
      const response = await ctx().call('GET', '/ui/admin/api-spec', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      const document = response.json<{ paths: object; components: { schemas: Record<string, Record<string, unknown>> } }>();
      const schemas = document.components.schemas;
      const reached = new Set<string>();
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (node === null || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key !== '$ref' || typeof value !== 'string') visit(value);
          else if (!reached.has(value)) {
            reached.add(value);
            visit(schemas[value.replace('#/components/schemas/', '')]);
          }
        }
      };
      visit(document.paths);
      const names = Object.keys(schemas);
      expect(names.length).toBeGreaterThan(100);
      expect(names.filter((name) => !reached.has(`#/components/schemas/${name}`))).toEqual([]);
      // every reference names a schema the document has
      expect([...reached].filter((ref) => !(ref.replace('#/components/schemas/', '') in schemas))).toEqual([]);
      expect(names.filter((name) => '$id' in schemas[name]! || '$schema' in schemas[name]!)).toEqual([]);
    });
    it('goes compressed to a client that takes brotli or gzip, the same document once decoded', async () => {
      const token = await ctx().adminToken();
      const plain = await ctx().call('GET', '/ui/admin/api-spec', { token });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      const br = await ctx().call('GET', '/ui/admin/api-spec', { token, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 8);
      expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
      const gzip = await ctx().call('GET', '/ui/admin/api-spec', { token, headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    });
    it('describes every response by what its status means', async () => {
      const response = await ctx().call('GET', '/ui/admin/api-spec', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      type Responses = Record<string, { description: string }>;
      const paths = response.json<{ paths: Record<string, Record<string, { responses: Responses }>> }>().paths;
      const descriptions = new Map<string, Set<string>>();
      for (const operations of Object.values(paths)) {
        for (const operation of Object.values(operations)) {
          for (const [status, { description }] of Object.entries(operation.responses)) {
            descriptions.set(status, (descriptions.get(status) ?? new Set()).add(description));
          }
        }
      }
      expect(Object.fromEntries([...descriptions].map(([status, texts]) => [status, [...texts]]))).toEqual({
        '200': ['Success'],
        '400': ['Malformed request: a parameter or field fails its schema ({errorToken, errorDescription, field})'],
        '401': ['No valid session token, or a partner credential (signature, upload token) that does not verify'],
        '403': ["The caller's role may not make this call"],
        '406': ['A search this call cannot answer (an unknown sort field or too long a period)'],
        '413': ['The upload is larger than its limit (payloadTooLarge)'],
        '418': ['Several business errors: {data: [{errorToken, errorDescription, field}]}'],
        '420': ['One business error: {errorToken, errorDescription}'],
      });
      expect(paths['/ui/qms/parts/search']?.post?.responses['406']?.description).toBe(responseDescriptions['406']);
    });
    it("shows each multipart route's form: its text fields, and its files as binary strings", async () => {
      const response = await ctx().call('GET', '/ui/admin/api-spec', { token: await ctx().adminToken() });
      expect(response.statusCode).toBe(200);
      type FormSchema = { properties: Record<string, { format?: string; items?: { format?: string } }> };
      const paths = response.json<{
        paths: Record<string, { post: { requestBody?: { content: Record<string, { schema: FormSchema }> } } }>;
      }>().paths;
      const form = (path: string) => {
        const schema = paths[path]?.post.requestBody?.content['multipart/form-data']?.schema;
        expect(schema, path).toBeDefined();
        return Object.entries(schema!.properties).map(([name, property]) =>
          property.format === 'binary' || property.items?.format === 'binary' ? `${name}: binary` : name,
        );
      };
      expect(
        Object.fromEntries(
          [
            '/ui/admin/upload/provision',
            '/ui/admin/upload/licensing',
            '/ui/package/files/upload',
            '/ui/package/device-template/import',
            '/ui/secure-repo/upload',
            '/mpf/dtl',
            '/ui/storage/dtl/upload',
            '/ui/svp-value/file/add',
            '/ui/svp-value/file/edit',
            '/ui/qms/inspection',
            '/mpf/design',
            '/ui/enforce/apl/upload',
            '/ui/event/upload',
            '/ui/order/upload',
            '/ui/device/image',
            '/ui/das/upload',
            '/ui/storage/{type}/upload',
            '/ui/storage/dsi/upload',
          ].map((path) => [path, form(path)]),
        ),
      ).toEqual({
        '/ui/admin/upload/provision': ['file: binary', 'certificateType'],
        '/ui/admin/upload/licensing': ['file: binary'],
        '/ui/package/files/upload': ['dsiId', 'isPublic', 'classification', 'file: binary'],
        '/ui/package/device-template/import': ['file: binary', 'dsiId'],
        '/ui/secure-repo/upload': ['nodeId', 'file: binary'],
        '/mpf/dtl': ['token', 'message', 'file: binary'],
        '/ui/storage/dtl/upload': ['deviceId', 'authorizationId', 'file: binary'],
        '/ui/svp-value/file/add': ['parameterId', 'partId', 'buildId', 'file: binary'],
        '/ui/svp-value/file/edit': ['id', 'parameterId', 'file: binary'],
        '/ui/qms/inspection': ['inspection', 'picture: binary'],
        '/mpf/design': ['message', 'token', 'design', 'file: binary'],
        '/ui/enforce/apl/upload': ['file: binary'],
        '/ui/event/upload': ['file: binary'],
        '/ui/order/upload': ['file: binary'],
        '/ui/device/image': ['deviceId', 'file: binary'],
        '/ui/das/upload': ['file: binary'],
        '/ui/storage/{type}/upload': ['file: binary'],
        '/ui/storage/dsi/upload': ['file: binary'],
      });
    });
  });

  describe('calls the spec marks unimplemented', () => {
    const calls = unimplementedRoutes.map(({ method, url }) => ({
      method,
      url,
      admin: accessOf(`${method} ${url}`) === 'admin',
    }));

    it('are the eight of spec §7, each with a permission row', () => {
      expect(calls.map(({ method, url }) => `${method} ${url}`).sort()).toEqual([
        'GET /ui/qms/data',
        'GET /ui/qms/failed',
        'GET /ui/qms/parts/list',
        'GET /ui/qms/results',
        'GET /ui/qms/search',
        'POST /ui/admin/blockchain/provider',
        'POST /ui/admin/sso',
        'POST /ui/qms/parts/entry',
      ]);
      expect(calls.filter((call) => call.admin).map(({ url }) => url)).toEqual([
        '/ui/admin/sso',
        '/ui/admin/blockchain/provider',
      ]);
    });

    it.each(calls)('$method $url needs a session', async ({ method, url }) => {
      expectToken(await ctx().call(method, url, method === 'POST' ? { body: {} } : {}), 401, 'invalidSessionToken');
    });

    it.each(calls)('$method $url answers 501 functionNotImplemented with a session', async ({ method, url, admin }) => {
      const token = admin ? await ctx().adminToken() : (await ctx().createUser()).token;
      expectToken(
        await ctx().call(method, url, { token, ...(method === 'POST' ? { body: {} } : {}) }),
        501,
        'functionNotImplemented',
      );
    });

    it.each(calls.filter((call) => call.admin))('$method $url is for ADMIN only', async ({ method, url }) => {
      const { token } = await ctx().createUser();
      expectToken(await ctx().call(method, url, { token, body: {} }), 403, 'actionNotAllowed');
    });
  });

  describe('operations', () => {
    it('GET /healthz and /readyz answer without a session', async () => {
      expect((await ctx().call('GET', '/healthz')).json()).toEqual({ status: 'ok' });
      expect((await ctx().call('GET', '/readyz')).json()).toEqual({ status: 'ready' });
    });

    it('an unknown API path is a 404 with the spec body, before any session check', async () => {
      for (const [method, url] of [
        ['GET', '/ui/no/such/thing'],
        ['POST', '/ui/no/such/thing'],
        ['POST', '/apl/nothing'],
      ] as const) {
        const response = await ctx().call(method, url, { body: method === 'POST' ? {} : undefined });
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual({ errorToken: 'entityDoesNotExist', errorDescription: 'Entity does not exist' });
      }
    });
  });
});
