import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  givenName?: string;
  familyName?: string;
  preferredUsername?: string;
  /** The `email_verified` claim: true unless given; `null` leaves the claim out. */
  emailVerified?: boolean | null;
}

/** A real OpenID provider (`oidc-provider`) on a loopback port, for the SSO tests. */
export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the provider's next interaction (there is no login form: the test decides). */
  signInAs(accountId: string, account: TestAccount): void;
  /**
   * Follows the browser's redirects from an authorization address until the provider sends it
   * back to `redirectUri`; answers that callback address (code, state, iss).
   */
  browse(authorizationUrl: string): Promise<URL>;
  /** How many requests the provider's userinfo endpoint answered. */
  userinfoCalls(): number;
  close(): Promise<void>;
}

/**
 * `claimsInUserinfoOnly`: ID tokens carry only `sub` (and the protocol claims); e-mail and names
 * asked for by scope are answered by the userinfo endpoint alone (`conformIdTokenClaims`).
 */
export async function startOpenIdProvider(
  redirectUri: string,
  options: { claimsInUserinfoOnly?: boolean } = {},
): Promise<TestOpenIdProvider> {
  let userinfoCalls = 0;
  const accounts = new Map<string, TestAccount>();
  let nextAccount: string | undefined;
  const clientId = 'manifold-console';
  const clientSecret = 'a-long-client-secret-for-the-test-provider-0123456789';
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-provider', alg: 'RS256', use: 'sig' }] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'given_name', 'family_name'],
    },
    conformIdTokenClaims: options.claimsInUserinfoOnly === true,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-provider-cookie-key'] },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          ...(account.emailVerified === null ? {} : { email_verified: account.emailVerified ?? true }),
          preferred_username: account.preferredUsername,
          given_name: account.givenName,
          family_name: account.familyName,
        }),
      };
    },
  });
  const callback = provider.callback();
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.url?.startsWith('/me')) userinfoCalls += 1;
    if (!request.url?.startsWith('/interaction/')) {
      callback(request, response);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(request, response);
      const accountId = nextAccount;
      if (!accountId) throw new Error('the test provider has nobody to sign in');
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(
        request,
        response,
        { login: { accountId }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(accountId, account) {
      accounts.set(accountId, account);
      nextAccount = accountId;
    },
    async browse(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop += 1) {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const [name, ...value] = pair!.split('=');
          jar.set(name!.trim(), value.join('='));
        }
        const location = response.headers.get('location');
        if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${await response.text()}`);
        url = new URL(location, url);
        if (url.href.startsWith(redirectUri)) return url;
      }
      throw new Error('the provider redirected too often');
    },
    userinfoCalls: () => userinfoCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
