import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ZLoginResponse,
  ZOauthClient,
  ZOauthClientAddRequest,
  ZOauthClientCreated,
  ZOauthClientDeleteRequest,
  ZOidcSessionRequest,
  ZOidcTokenLoginRequest,
  ZSamlLoginRequest,
  ZSsoConfig,
  ZSsoLoginOptions,
  ZSsoProvider,
  ZSsoProviderDeleteRequest,
  ZSsoProviderParams,
  ZSsoProviderSaveRequest,
  ZSsoStartQuery,
  ZTrustedIssuer,
  ZTrustedIssuerAddRequest,
  ZTrustedIssuerDeleteRequest,
} from '@manifold/contract';
import { responses } from '../../lib/route-schemas.js';
import { actionRoute, collectionRoutes, saveRoute } from '../../lib/route-declarations.js';
import { AppError } from '../../lib/app-error.js';
import { SSO_LOGIN_TTL_SECONDS, type SsoStart } from './sso.service.js';

/** The cookie that binds a single sign-on login to the browser that started it. */
export const SSO_COOKIE = 'manifold_sso';
const FORM_MAX_BYTES = 1024 * 1024;

function ssoCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SSO_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
}

const meta = (request: FastifyRequest) => ({ sourceIp: request.ip, userAgent: request.headers['user-agent'] });

/**
 * A login is started by the browser navigating here: a refusal (unknown provider, provider not
 * reachable) sends it back to the console's sign-on page with the token and its description in
 * the query, as a provider's own refusal would (`error`, `error_description`), not a JSON page.
 */
async function startOrExplain(
  reply: FastifyReply,
  consolePage: string,
  start: () => Promise<SsoStart>,
): Promise<SsoStart | undefined> {
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const query = new URLSearchParams({ error: error.token, error_description: error.message });
    await reply.redirect(`${consolePage}?${query}`, 303);
    return undefined;
  }
}

/** Single sign-on (`admin/sso`, the login calls of spec §7 Session), trusted issuers and OAuth clients. */
export const identityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { sso, apiTokens, config } = app.services;
  const tags = ['identity'];

  // the identity provider's POST to the SAML assertion consumer and the OAuth token endpoint are forms
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_MAX_BYTES },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const setLoginCookie = (reply: FastifyReply, loginId: string) =>
    reply.header(
      'set-cookie',
      `${SSO_COOKIE}=${loginId}; Path=/ui/; Max-Age=${SSO_LOGIN_TTL_SECONDS}; HttpOnly; SameSite=Lax${config.cookieSecure ? '; Secure' : ''}`,
    );
  const clearLoginCookie = (reply: FastifyReply) =>
    reply.header(
      'set-cookie',
      `${SSO_COOKIE}=; Path=/ui/; Max-Age=0; HttpOnly; SameSite=Lax${config.cookieSecure ? '; Secure' : ''}`,
    );

  app.get(
    '/ui/admin/sso',
    {
      schema: {
        tags,
        summary: 'Single sign-on in force: identity providers (no secrets), SAML entity id, token endpoint',
        response: responses(ZSsoConfig),
      },
    },
    () => sso.describe(),
  );

  saveRoute(
    app,
    '/ui/admin/sso/provider',
    {
      tags,
      summary:
        'Add (no id) or change an identity provider (OIDC or SAML); the client secret is sealed at rest and never returned',
      body: ZSsoProviderSaveRequest,
      response: ZSsoProvider,
    },
    (body, caller) => sso.save(body, caller),
  );
  actionRoute(
    app,
    '/ui/admin/sso/delete',
    { tags, summary: 'Remove an identity provider', body: ZSsoProviderDeleteRequest },
    (body, caller) => sso.delete(body.id, caller),
  );

  app.get(
    '/ui/user/sso/providers',
    { schema: { tags, summary: 'The identity providers the login page offers', response: responses(ZSsoLoginOptions) } },
    async () => ({ data: await sso.loginOptions() }),
  );

  app.get(
    '/ui/user/oidc/authenticate/:id',
    { schema: { tags, summary: 'Start an OpenID Connect login: redirects to the provider', params: ZSsoProviderParams } },
    async (request, reply) => {
      const start = await startOrExplain(reply, `${config.publicUrl}/login/oidc`, () => sso.startOidc(request.params.id));
      if (!start) return reply;
      setLoginCookie(reply, start.loginId);
      return reply.redirect(start.location, 302);
    },
  );

  // spec §7 has two calls that finish an OpenID Connect login: with the state, and without it
  // (then the cookie and PKCE bind the code to the login this browser started)
  const oidcFinishes = [
    {
      path: '/ui/sessions',
      summary: 'Finish an OpenID Connect login (authorization code, state, redirect URI): a session like a password login',
      body: ZOidcSessionRequest,
    },
    {
      path: '/ui/user/login/token',
      summary: 'Finish an OpenID Connect login (authorization code, redirect URI) started in this browser',
      body: ZOidcTokenLoginRequest,
    },
  ];
  for (const finish of oidcFinishes) {
    app.post(
      finish.path,
      { schema: { tags, summary: finish.summary, body: finish.body, response: responses(ZLoginResponse) } },
      async (request, reply) => {
        clearLoginCookie(reply);
        return sso.finishOidc(request.body, ssoCookieOf(request), meta(request));
      },
    );
  }

  app.get(
    '/ui/user/saml2/authenticate/:id',
    {
      schema: {
        tags,
        summary: 'Start a SAML 2.0 login: redirects to the identity provider with an AuthnRequest and the RelayState',
        params: ZSsoProviderParams,
        querystring: ZSsoStartQuery,
      },
    },
    async (request, reply) => {
      const start = await startOrExplain(reply, `${config.publicUrl}/login/saml/${encodeURIComponent(request.params.id)}`, () =>
        sso.startSaml(request.params.id, request.query.RelayState),
      );
      if (!start) return reply;
      setLoginCookie(reply, start.loginId);
      return reply.redirect(start.location, 302);
    },
  );

  app.post(
    '/ui/user/login/saml2/sso/:id',
    {
      schema: {
        tags,
        summary: 'Finish a SAML 2.0 login with the signed response (base64): a session like a password login',
        params: ZSsoProviderParams,
        body: ZSamlLoginRequest,
        response: responses(ZLoginResponse),
      },
    },
    async (request, reply) => {
      clearLoginCookie(reply);
      return sso.finishSaml(request.params.id, request.body.samlResponse, ssoCookieOf(request), meta(request));
    },
  );

  app.post(
    '/ui/user/saml2/acs/:id',
    {
      schema: {
        tags,
        summary:
          'SAML assertion consumer (HTTP-POST binding): hands the response to the console login page in the URL fragment, verifies nothing itself',
        params: ZSsoProviderParams,
        consumes: ['application/x-www-form-urlencoded'],
        body: z.object({ SAMLResponse: z.string().min(1).max(FORM_MAX_BYTES), RelayState: z.string().max(1024).optional() }),
      },
    },
    async (request, reply) => {
      const fragment = new URLSearchParams({ samlResponse: request.body.SAMLResponse });
      if (request.body.RelayState) fragment.set('RelayState', request.body.RelayState);
      return reply.redirect(`${config.publicUrl}/login/saml/${encodeURIComponent(request.params.id)}#${fragment}`, 303);
    },
  );

  collectionRoutes(app, '/ui/authentication', tags, {
    list: {
      summary: 'Trusted token issuers (authorization servers)',
      item: ZTrustedIssuer,
      run: (query) => apiTokens.listIssuers(query),
    },
    add: {
      summary: 'Trust the JWTs of an authorization server (issuer and its JWK set address)',
      body: ZTrustedIssuerAddRequest,
      response: ZTrustedIssuer,
      run: (body, caller) => apiTokens.addIssuer(body, caller),
    },
    delete: {
      summary: 'Stop trusting an issuer (at once)',
      body: ZTrustedIssuerDeleteRequest,
      run: (body, caller) => apiTokens.deleteIssuer(body.issuer, caller),
    },
  });

  collectionRoutes(app, '/ui/client', tags, {
    list: {
      summary: 'OAuth clients of this server (no secrets)',
      item: ZOauthClient,
      run: (query) => apiTokens.listClients(query),
    },
    add: {
      summary: 'Add an OAuth client; the answer carries its secret, shown this once and stored hashed',
      body: ZOauthClientAddRequest,
      response: ZOauthClientCreated,
      run: (body, caller) => apiTokens.addClient(body, caller),
    },
    delete: {
      summary: 'Delete an OAuth client; its tokens stop working at once',
      body: ZOauthClientDeleteRequest,
      run: (body, caller) => apiTokens.deleteClient(body.clientId, caller),
    },
  });

  app.post(
    '/oauth2/token',
    {
      schema: {
        tags,
        summary:
          'OAuth 2.0 token endpoint (RFC 6749): client_credentials and refresh_token grants; client secret by HTTP Basic or in the form',
        consumes: ['application/x-www-form-urlencoded'],
        body: z.record(z.string(), z.string()),
      },
    },
    async (request, reply) => {
      const form = request.body;
      const basic = basicCredentials(request.headers.authorization);
      const answer = await apiTokens.token({
        grantType: form.grant_type,
        clientId: basic?.clientId ?? form.client_id,
        clientSecret: basic?.clientSecret ?? form.client_secret,
        refreshToken: form.refresh_token,
        scope: form.scope,
      });
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      if (!answer.ok && answer.status === 401) reply.header('www-authenticate', 'Basic realm="oauth2"');
      return reply.status(answer.ok ? 200 : answer.status).send(answer.body);
    },
  );
};

/** `Authorization: Basic base64(urlencoded id ":" urlencoded secret)` (RFC 6749 §2.3.1). */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}
