import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectToken, expectTokens } from './helpers/test-app.js';

/** A JWK set on a loopback port: the keys of a stand-in authorization server. */
interface KeyServer {
  url: string;
  issuer: string;
  sign(claims: Record<string, unknown>, options?: { expiresIn?: string; audience?: string; issuer?: string }): Promise<string>;
  close(): Promise<void>;
}

async function startKeyServer(): Promise<KeyServer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const server = http.createServer((request, response) => {
    if (request.url === '/jwks.json') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/issuer`;
  return {
    url: `${base}/jwks.json`,
    issuer,
    sign: (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? 'http://127.0.0.1:8080')
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let keys: KeyServer;
beforeAll(async () => {
  keys = await startKeyServer();
});
afterAll(async () => {
  await keys.close();
});

describeEachDatabase(
  'trusted issuers and OAuth clients',
  (ctx) => {
    const form = (fields: Record<string, string>) => ({
      'content-type': 'application/x-www-form-urlencoded',
      body: new URLSearchParams(fields).toString(),
    });
    const token = (fields: Record<string, string>) => {
      const { 'content-type': contentType, body } = form(fields);
      return ctx().app.inject({ method: 'POST', url: '/oauth2/token', headers: { 'content-type': contentType }, payload: body });
    };

    describe('authentication/*', () => {
      it('should require authentication, and ADMIN', async () => {
        expect((await ctx().call('GET', '/ui/authentication/list')).statusCode).toBe(401);
        const { token: userToken } = await ctx().createUser();
        expectToken(await ctx().call('POST', '/ui/authentication/add', { token: userToken, body: {} }), 403, 'actionNotAllowed');
      });

      it('adds, lists and refuses a duplicate or an empty issuer', async () => {
        const admin = await ctx().adminToken();
        const issuer = `${keys.issuer}/dup`;
        expect(tokensOf(await ctx().call('POST', '/ui/authentication/add', { token: admin, body: {} }))).toEqual([
          'issuerEmpty',
          'jwkSetUriEmpty',
        ]);
        const added = await ctx().call('POST', '/ui/authentication/add', { token: admin, body: { issuer, jwkSetUri: keys.url } });
        expect(added.statusCode, added.body).toBe(200);
        expectToken(
          await ctx().call('POST', '/ui/authentication/add', { token: admin, body: { issuer, jwkSetUri: keys.url } }),
          420,
          'issuerAlreadyexists',
          'issuer',
        );
        const list = await ctx().call('GET', '/ui/authentication/list?numberOfItems=100', { token: admin });
        expect(list.json().data).toContainEqual(expect.objectContaining({ issuer, jwkSetUri: keys.url }));
        expectToken(
          await ctx().call('POST', '/ui/authentication/delete', { token: admin, body: { issuer: 'https://nobody.example' } }),
          420,
          'issuerNotFound',
        );
      });

      it('refuses a key set address outside PEER_ALLOWED_HOSTS', async () => {
        const admin = await ctx().adminToken();
        expectToken(
          await ctx().call('POST', '/ui/authentication/add', {
            token: admin,
            body: { issuer: 'https://elsewhere.example', jwkSetUri: 'http://10.1.2.3/jwks.json' },
          }),
          420,
          'httpClientBadUrl',
        );
      });

      it('lets a trusted JWT call the API with the role its claims give, and stops at once when the issuer is removed', async () => {
        const admin = await ctx().adminToken();
        const issuer = `${keys.issuer}/live`;
        const { profile: operator } = await ctx().createUser({ role: 'ADMIN' });
        const { profile: worker } = await ctx().createUser({ role: 'USER' });
        const audience = ctx().config.publicUrl;
        const adminJwt = await keys.sign({ sub: operator.username, roles: ['ADMIN'] }, { issuer, audience });
        const userJwt = await keys.sign({ sub: operator.username, roles: ['USER'] }, { issuer, audience });
        const raisedJwt = await keys.sign({ sub: worker.username, roles: ['ADMIN'] }, { issuer, audience });

        expect((await ctx().call('GET', '/ui/user/login', { token: adminJwt })).statusCode).toBe(401); // not trusted yet
        expect(
          (await ctx().call('POST', '/ui/authentication/add', { token: admin, body: { issuer, jwkSetUri: keys.url } }))
            .statusCode,
        ).toBe(200);

        const session = await ctx().call('GET', '/ui/user/login', { token: adminJwt });
        expect(session.statusCode, session.body).toBe(200);
        expect(session.json().userProfile.username).toBe(operator.username);
        expect((await ctx().call('GET', '/ui/authentication/list', { token: adminJwt })).statusCode).toBe(200);
        expectToken(await ctx().call('GET', '/ui/authentication/list', { token: userJwt }), 403, 'actionNotAllowed');
        expectToken(await ctx().call('GET', '/ui/authentication/list', { token: raisedJwt }), 403, 'actionNotAllowed');
        expect((await ctx().call('GET', '/ui/user/list', { token: raisedJwt })).statusCode).toBe(200);
        // an API token is not a session: it cannot be turned into one
        expectToken(await ctx().call('POST', '/ui/user/refresh', { token: adminJwt }), 403, 'actionNotAllowed');

        const refused = [
          await keys.sign({ sub: operator.username }, { issuer, audience: 'https://someone-else.example' }),
          await keys.sign({ sub: operator.username }, { issuer, audience, expiresIn: '-1m' }),
          await keys.sign({ sub: 'no-such-user' }, { issuer, audience }),
          await keys.sign({ sub: operator.username }, { issuer: `${keys.issuer}/unknown`, audience }),
          await new SignJWT({ sub: operator.username })
            .setProtectedHeader({ alg: 'HS256' })
            .setIssuer(issuer)
            .setAudience(audience)
            .setExpirationTime('5m')
            .sign(new TextEncoder().encode('x'.repeat(32))),
        ];
        for (const jwt of refused)
          expectToken(await ctx().call('GET', '/ui/user/login', { token: jwt }), 401, 'invalidSessionToken');

        expect((await ctx().call('POST', '/ui/authentication/delete', { token: admin, body: { issuer } })).statusCode).toBe(200);
        expect((await ctx().call('GET', '/ui/user/login', { token: adminJwt })).statusCode).toBe(401);
        const audit = await ctx()
          .app.services.database.db.selectFrom('audit_events')
          .select('event_type')
          .where('subject', '=', issuer)
          .orderBy('id')
          .execute();
        expect(audit.map((row) => row.event_type)).toEqual(['trustedIssuerAdded', 'trustedIssuerDeleted']);
      });

      it('acts only as the local user the token names (any case), never one whose name merely looks alike', async () => {
        const admin = await ctx().adminToken();
        const issuer = `${keys.issuer}/lookalike`;
        const audience = ctx().config.publicUrl;
        const suffix = Math.random()
          .toString(36)
          .replace(/[^a-z]/g, '')
          .slice(0, 4);
        const { profile: operator } = await ctx().createUser({ username: `mona.${suffix}`, role: 'ADMIN' });
        expect(
          (await ctx().call('POST', '/ui/authentication/add', { token: admin, body: { issuer, jwkSetUri: keys.url } }))
            .statusCode,
        ).toBe(200);
        const same = await keys.sign({ sub: operator.username.toUpperCase(), roles: ['ADMIN'] }, { issuer, audience });
        const session = await ctx().call('GET', '/ui/user/login', { token: same });
        expect(session.statusCode, session.body).toBe(200);
        expect(session.json().userProfile.username).toBe(operator.username);
        // other names at the issuer, other people: `rn` for `m`, a Cyrillic `о` for the Latin one
        for (const name of [`rnona.${suffix}`, `m\u043Ena.${suffix}`]) {
          for (const claim of ['sub', 'preferred_username']) {
            const jwt = await keys.sign({ sub: 'someone', [claim]: name, roles: ['ADMIN'] }, { issuer, audience });
            expectToken(await ctx().call('GET', '/ui/user/login', { token: jwt }), 401, 'invalidSessionToken');
          }
        }
      });
    });

    describe('client/* and the token endpoint', () => {
      const clientInput = (overrides: Record<string, unknown> = {}) => ({
        clientId: `mes-${Math.random().toString(36).slice(2, 8)}`,
        authorizedGrantTypes: 'client_credentials,refresh_token',
        webServerRedirectUri: 'https://mes.example/callback',
        scope: 'read,write',
        authorities: 'ADMIN',
        accessTokenValidity: 600,
        refreshTokenValidity: 3600,
        ...overrides,
      });

      it('should require authentication, and ADMIN', async () => {
        expect((await ctx().call('GET', '/ui/client/list')).statusCode).toBe(401);
        const { token: userToken } = await ctx().createUser();
        expectToken(
          await ctx().call('POST', '/ui/client/add', { token: userToken, body: clientInput() }),
          403,
          'actionNotAllowed',
        );
      });

      it('checks the required fields (spec §5) together', async () => {
        const admin = await ctx().adminToken();
        const problems = expectTokens(
          await ctx().call('POST', '/ui/client/add', {
            token: admin,
            body: { clientId: 'x', authorizedGrantTypes: 'refresh_token', authorities: 'ROOT' },
          }),
        );
        expect(problems.map((problem) => `${problem.errorToken}:${problem.field}`)).toEqual([
          'clientGrantTypesInvalid:authorizedGrantTypes',
          'clientRedirectUriEmpty:webServerRedirectUri',
          'clientTokenValidityInvalid:accessTokenValidity',
          'clientAuthoritiesInvalid:authorities',
        ]);
      });

      it('answers 400 for any of its lists with spaces or empty entries, alike (docs/identity.md)', async () => {
        const admin = await ctx().adminToken();
        for (const [field, value] of [
          ['scope', 'read, write'],
          ['resourceIds', 'api, files'],
          ['authorities', 'ADMIN, USER'],
          ['authorizedGrantTypes', 'client_credentials, refresh_token'],
          ['authorizedGrantTypes', 'client_credentials,'],
          ['webServerRedirectUri', 'https://mes.example/a, https://mes.example/b'],
          ['webServerRedirectUri', 'https://mes.example/a b'],
        ]) {
          const response = await ctx().call('POST', '/ui/client/add', { token: admin, body: clientInput({ [field!]: value }) });
          expect(response.statusCode, `${field}: ${value} ${response.body}`).toBe(400);
          expect(response.json()).toMatchObject({
            errorToken: 'malformedRequest',
            errorDescription: expect.stringContaining(`${field}: a comma-delimited list without spaces`),
          });
        }
      });

      it('takes only absolute http(s) redirect addresses, each of a list', async () => {
        const admin = await ctx().adminToken();
        for (const webServerRedirectUri of [
          'javascript:alert(1)',
          'data:text/html,<script>alert(1)</script>',
          'mes.example/callback',
          '/callback',
          'ftp://mes.example/callback',
          'https://mes.example/callback,javascript:alert(1)',
        ]) {
          const response = await ctx().call('POST', '/ui/client/add', {
            token: admin,
            body: clientInput({ webServerRedirectUri }),
          });
          expectToken(response, 420, 'clientRedirectUriEmpty', 'webServerRedirectUri');
        }
        const input = clientInput({ webServerRedirectUri: 'https://mes.example/callback,http://127.0.0.1:9000/cb' });
        const added = await ctx().call('POST', '/ui/client/add', { token: admin, body: input });
        expect(added.statusCode, added.body).toBe(200);
        expect(added.json()).toMatchObject({ webServerRedirectUri: 'https://mes.example/callback,http://127.0.0.1:9000/cb' });
      });

      it('says what a clientId and a redirect address may hold when they are given but not valid', async () => {
        const admin = await ctx().adminToken();
        const response = await ctx().call('POST', '/ui/client/add', {
          token: admin,
          body: clientInput({ clientId: 'mes client', webServerRedirectUri: 'mes.example.com/callback' }),
        });
        expect(expectTokens(response).map((problem) => `${problem.errorToken}:${problem.field}`)).toEqual([
          'clientIdEmpty:clientId',
          'clientRedirectUriEmpty:webServerRedirectUri',
        ]);
        // not a bare "is required" for a value that was given
        const [clientId, redirect] = (response.json() as { data: { errorDescription: string }[] }).data;
        expect(clientId?.errorDescription).toMatch(/letters, digits/);
        expect(redirect?.errorDescription).toMatch(/absolute http or https addresses, comma-delimited without spaces/);
      });

      it('shows the secret once, stores only its hash, and issues tokens that reach the API with the client authorities', async () => {
        const admin = await ctx().adminToken();
        const input = clientInput();
        const added = await ctx().call('POST', '/ui/client/add', { token: admin, body: input });
        expect(added.statusCode, added.body).toBe(200);
        const { clientSecret } = added.json<{ clientSecret: string }>();
        expect(clientSecret.length).toBeGreaterThanOrEqual(40);
        expectToken(await ctx().call('POST', '/ui/client/add', { token: admin, body: input }), 420, 'clientIdTaken');
        const list = await ctx().call('GET', '/ui/client/list?numberOfItems=100', { token: admin });
        expect(list.body).not.toContain(clientSecret);
        expect(list.json().data).toContainEqual(expect.objectContaining({ clientId: input.clientId, accessTokenValidity: 600 }));
        const stored = await ctx()
          .app.services.database.db.selectFrom('oauth_clients')
          .select('secret_hash')
          .where('client_id', '=', input.clientId)
          .executeTakeFirstOrThrow();
        expect(stored.secret_hash).not.toContain(clientSecret);

        const wrong = await token({ grant_type: 'client_credentials', client_id: input.clientId, client_secret: 'nope' });
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
        expect(
          (await token({ grant_type: 'password', client_id: input.clientId, client_secret: clientSecret })).json(),
        ).toMatchObject({
          error: 'unsupported_grant_type',
        });
        expect(
          (
            await token({
              grant_type: 'client_credentials',
              client_id: input.clientId,
              client_secret: clientSecret,
              scope: 'admin',
            })
          ).json(),
        ).toMatchObject({ error: 'invalid_scope' });

        const basic = Buffer.from(`${input.clientId}:${clientSecret}`).toString('base64');
        const issued = await ctx().app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
          payload: 'grant_type=client_credentials&scope=read',
        });
        expect(issued.statusCode, issued.body).toBe(200);
        expect(issued.headers['cache-control']).toBe('no-store');
        const grant = issued.json<{
          access_token: string;
          refresh_token: string;
          expires_in: number;
          scope: string;
          token_type: string;
        }>();
        expect(grant).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'read' });
        expect((await ctx().call('GET', '/ui/client/list', { token: grant.access_token })).statusCode).toBe(200);

        const refreshed = await token({
          grant_type: 'refresh_token',
          refresh_token: grant.refresh_token,
          client_id: input.clientId,
          client_secret: clientSecret,
        });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        const again = await token({
          grant_type: 'refresh_token',
          refresh_token: grant.refresh_token,
          client_id: input.clientId,
          client_secret: clientSecret,
        });
        expect(again.json()).toMatchObject({ error: 'invalid_grant' }); // refresh tokens rotate: one use
        const second = refreshed.json<{ access_token: string }>().access_token;

        expect(
          (await ctx().call('POST', '/ui/client/delete', { token: admin, body: { clientId: input.clientId } })).statusCode,
        ).toBe(200);
        expectToken(await ctx().call('GET', '/ui/client/list', { token: grant.access_token }), 401, 'invalidSessionToken');
        expectToken(await ctx().call('GET', '/ui/client/list', { token: second }), 401, 'invalidSessionToken');
        expect(
          (await token({ grant_type: 'client_credentials', client_id: input.clientId, client_secret: clientSecret })).statusCode,
        ).toBe(401);
        expectToken(
          await ctx().call('POST', '/ui/client/delete', { token: admin, body: { clientId: input.clientId } }),
          420,
          'clientDoesNotExist',
          'clientId',
        );
      });

      it('gives a USER-authority client the USER role', async () => {
        const admin = await ctx().adminToken();
        const input = clientInput({ authorities: 'ROLE_USER', authorizedGrantTypes: 'client_credentials' });
        const { clientSecret } = (await ctx().call('POST', '/ui/client/add', { token: admin, body: input })).json<{
          clientSecret: string;
        }>();
        const issued = await token({ grant_type: 'client_credentials', client_id: input.clientId, client_secret: clientSecret });
        const { access_token: accessToken, refresh_token: refreshToken } = issued.json<{
          access_token: string;
          refresh_token?: string;
        }>();
        expect(refreshToken).toBeUndefined();
        expect((await ctx().call('GET', '/ui/user/list', { token: accessToken })).statusCode).toBe(200);
        expectToken(await ctx().call('GET', '/ui/client/list', { token: accessToken }), 403, 'actionNotAllowed');
      });
    });
  },
  { PEER_ALLOWED_HOSTS: '127.0.0.1' },
);

function tokensOf(response: { statusCode: number; body: string; json(): unknown }): string[] {
  return expectTokens(response).map((problem) => problem.errorToken);
}
