import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './helpers/software-authenticator.js';
import { clientCredentialsToken } from './helpers/oauth-client.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';

const origin = 'https://manifold.example';
const rpId = 'manifold.example';

async function options(ctx: TestApp, token: string, kind: 'attestation' | 'assertion'): Promise<string> {
  const response = await ctx.call('POST', `/ui/authenticators/${kind}-options/generate`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ challenge: string }>().challenge;
}

describeEachDatabase(
  'identity settings and escalation',
  (ctx) => {
    const clientInput = (clientId: string) => ({
      clientId,
      authorizedGrantTypes: 'client_credentials',
      webServerRedirectUri: 'https://mes.example/callback',
      authorities: 'ADMIN',
      accessTokenValidity: 600,
    });

    describe('an administrator with a security key', () => {
      it('must escalate to add trust (provider, issuer, client), not to revoke it; an API token never escalates', async () => {
        const { token, profile, password } = await ctx().createUser({ role: 'ADMIN' });
        const key = new SoftwareAuthenticator(rpId, origin);
        const attestation = await options(ctx(), token, 'attestation');
        const added = await ctx().call('POST', '/ui/authenticators/add', {
          token,
          body: { name: 'Desk key', credential: key.register(attestation) },
        });
        expect(added.statusCode, added.body).toBe(200);

        const clientId = `esc-${Math.random().toString(36).slice(2, 8)}`;
        expectToken(
          await ctx().call('POST', '/ui/client/add', { token, body: clientInput(clientId) }),
          403,
          'escalationRequired',
        );
        expectToken(
          await ctx().call('POST', '/ui/authentication/add', {
            token,
            body: { issuer: 'https://issuer.example', jwkSetUri: 'https://issuer.example/jwks' },
          }),
          403,
          'escalationRequired',
        );
        expectToken(await ctx().call('POST', '/ui/admin/sso/provider', { token, body: {} }), 403, 'escalationRequired');
        expect((await ctx().call('GET', '/ui/admin/sso', { token })).statusCode).toBe(200);

        const assertion = await options(ctx(), token, 'assertion');
        const escalation = await ctx().call('POST', '/ui/authenticators/escalate-login', {
          token,
          body: { credential: key.assert(assertion) },
        });
        expect(escalation.statusCode, escalation.body).toBe(200);
        const created = await ctx().call('POST', '/ui/client/add', { token, body: clientInput(clientId) });
        expect(created.statusCode, created.body).toBe(200);

        // the client acts for this administrator, but its token is never escalated
        const accessToken = await clientCredentialsToken(ctx(), clientId, created.json<{ clientSecret: string }>().clientSecret);
        expect((await ctx().call('GET', '/ui/client/list', { token: accessToken })).statusCode).toBe(200);
        expectToken(
          await ctx().call('POST', '/ui/client/add', { token: accessToken, body: clientInput(`${clientId}-2`) }),
          403,
          'escalationRequired',
        );

        // revoking needs no escalation: a new session of the same administrator, not escalated
        const fresh = await ctx().login(profile.username, password);
        expect((await ctx().call('GET', '/ui/user/login', { token: fresh })).json()).toMatchObject({ escalated: false });
        expect((await ctx().call('POST', '/ui/client/delete', { token: fresh, body: { clientId } })).statusCode).toBe(200);
        expectToken(await ctx().call('GET', '/ui/client/list', { token: accessToken }), 401, 'invalidSessionToken');
      });
    });
  },
  { PUBLIC_URL: origin, ESCALATION_SECONDS: '120' },
);
