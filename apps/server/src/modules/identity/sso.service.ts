import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import * as oidc from 'openid-client';
import type {
  TLoginResponse,
  TSsoConfig,
  TSsoLoginOption,
  TSsoProvider,
  TSsoProviderSaveRequest,
  TSsoConnection,
} from '@manifold/contract';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import type { IdentityProviderRow, SsoLoginRow } from '../../db/schema-identity.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl } from '../../peers/http-client.js';
import { AuditRepository } from '../audit/audit.repository.js';
import type { KeySealer } from '../provision/key-sealer.js';
import type { RequestMeta, SessionService } from '../session/session.service.js';
import { SessionsRepository } from '../session/sessions.repository.js';
import { IdentityRepository, toSsoProvider } from './identity.repository.js';
import { outboundFetch } from './outbound-fetch.js';
import { resolveSsoAccount, type ExternalIdentity } from './sso-accounts.js';
import { lazyPackage } from '../../lib/lazy-package.js';
import { parseCertificate } from '../../crypto/certificates.js';

/** How long a started login may take at the provider. */
export const SSO_LOGIN_TTL_SECONDS = 600;
const samlPackage = lazyPackage<typeof NodeSaml>('@node-saml/node-saml');

/** The oldest SAML assertion accepted (after its IssueInstant); used ids are kept this long. */
const SAML_MAX_ASSERTION_AGE_MS = 10 * 60_000;
const SAML_CLOCK_SKEW_MS = 60_000;
const DISCOVERY_TTL_MS = 10 * 60_000;

/** Where the browser goes to sign in, and the cookie that binds the login to it. */
export interface SsoStart {
  location: string;
  loginId: string;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) {
    if (typeof value === 'string' && value) return value;
    if (Array.isArray(value) && typeof value[0] === 'string' && value[0]) return value[0];
  }
  return undefined;
}

/**
 * What an ID token or a userinfo answer says of the person. The e-mail counts only when the
 * provider marks it verified (`email_verified: true`): it names, links and admits accounts
 * (docs/identity.md#accounts), and an address a user merely typed in at the provider must not.
 */
function identityFrom(issuer: string, subject: string, claims: Record<string, unknown>): ExternalIdentity {
  return {
    issuer,
    subject,
    email: claims.email_verified === true ? firstString(claims.email) : undefined,
    preferredUsername: firstString(claims.preferred_username),
    firstName: firstString(claims.given_name),
    lastName: firstString(claims.family_name),
  };
}

function lacksProfile(identity: ExternalIdentity): boolean {
  return !identity.email || !identity.preferredUsername || !identity.firstName || !identity.lastName;
}

/** The ID token's claims first; the userinfo answer (same subject, checked by openid-client) fills the gaps. */
function fillProfile(token: ExternalIdentity, userinfo: ExternalIdentity): ExternalIdentity {
  return {
    issuer: token.issuer,
    subject: token.subject,
    email: token.email ?? userinfo.email,
    preferredUsername: token.preferredUsername ?? userinfo.preferredUsername,
    firstName: token.firstName ?? userinfo.firstName,
    lastName: token.lastName ?? userinfo.lastName,
  };
}

/**
 * Single sign-on (docs/identity.md): identity providers (`admin/sso`), OpenID Connect logins
 * (authorization code with PKCE, state and nonce, ID token signature checked against the
 * provider's keys) and SAML 2.0 logins (signed response or assertion, audience, time window,
 * InResponseTo of the request this browser started, replay), ending in an ordinary session.
 */
export class SsoService {
  private readonly discovered = new Map<string, { at: number; config: oidc.Configuration }>();

  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly sealer: KeySealer,
    private readonly sessions: SessionService,
    private readonly tokenEndpoint: string,
    private readonly jwtAudience: string,
  ) {}

  /** This server's SAML service-provider entity id: the audience assertions must name. */
  get samlEntityId(): string {
    return this.config.publicUrl;
  }

  async describe(): Promise<TSsoConfig> {
    const providers = (await new IdentityRepository(this.database.db).listProviders()).map(toSsoProvider);
    return {
      enabled: providers.some((provider) => provider.enabled),
      samlEntityId: this.samlEntityId,
      jwtAudience: this.jwtAudience,
      tokenEndpoint: this.tokenEndpoint,
      data: providers,
    };
  }

  async loginOptions(): Promise<TSsoLoginOption[]> {
    const providers = await new IdentityRepository(this.database.db).listProviders();
    return providers
      .filter((row) => Number(row.enabled) === 1)
      .map((row) => ({ id: row.id, name: row.name, connection: row.connection as TSsoConnection }));
  }

  async save(input: TSsoProviderSaveRequest, caller: Caller): Promise<TSsoProvider> {
    const repository = new IdentityRepository(this.database.db);
    const existing = input.id ? await repository.findProvider(input.id) : undefined;
    if (input.id && !existing) throw new AppError('ssoProviderNotFound', { field: 'id' });
    const problems = new ErrorCollector();
    const policy = this.config.peers.allowedHosts;
    const checkUrl = (value: string | undefined, field: string) => {
      try {
        if (!value) throw new AppError('ssoProviderInvalid');
        parsePeerUrl(new URL(value).origin, policy);
      } catch (error) {
        problems.add(error instanceof AppError ? error.token : 'ssoProviderInvalid', field);
      }
    };
    const absolute = (value: string, field: string) => {
      try {
        const url = new URL(value);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
      } catch {
        problems.add('ssoProviderInvalid', field, `${field} must be an absolute http(s) address`);
      }
    };
    if (!input.name.trim()) problems.add('ssoProviderInvalid', 'name', 'name is required');
    const id = existing?.id ?? randomUUID();
    const redirectUri =
      input.connection === 'saml' ? `${this.config.publicUrl}/ui/user/saml2/acs/${id}` : (input.redirectUri?.trim() ?? '');
    absolute(redirectUri, 'redirectUri');
    let secretSealed = existing?.client_secret_sealed ?? null;
    if (input.connection === 'oidc') {
      checkUrl(input.domain, 'domain');
      if (!input.clientId) problems.add('ssoProviderInvalid', 'clientId', 'clientId is required');
      if (input.clientSecret) secretSealed = this.sealer.seal(input.clientSecret);
      if (!secretSealed) problems.add('ssoProviderInvalid', 'clientSecret', 'clientSecret is required');
    } else {
      if (!input.domain.trim())
        problems.add('ssoProviderInvalid', 'domain', "domain is required: the identity provider's entity id");
      absolute(input.ssoUrl ?? '', 'ssoUrl');
      try {
        parseCertificate(input.idpCertificate ?? '');
      } catch {
        problems.add(
          'ssoProviderInvalid',
          'idpCertificate',
          'idpCertificate must be the PEM certificate the provider signs with',
        );
      }
      secretSealed = null;
    }
    problems.throwIfAny();
    const now = isoNow();
    const row = {
      name: input.name.trim(),
      connection: input.connection,
      enabled: input.enabled ? 1 : 0,
      domain: input.domain.trim(),
      client_id: input.connection === 'oidc' ? (input.clientId ?? null) : null,
      client_secret_sealed: secretSealed,
      redirect_uri: redirectUri,
      sso_url: input.connection === 'saml' ? (input.ssoUrl ?? null) : null,
      idp_certificate: input.connection === 'saml' ? (input.idpCertificate?.trim() ?? null) : null,
      default_role: input.defaultRole,
      allow_create: input.allowCreate ? 1 : 0,
      allowed_domains: input.allowedDomains ?? '',
      updated_at: now,
    };
    await this.database.transaction(async (trx) => {
      const providers = new IdentityRepository(trx);
      if (existing) await providers.updateProvider(id, row);
      else await providers.insertProvider({ ...row, id, created_at: now });
      // turned off: the sessions its logins opened end with the change
      const sessionsEnded = existing && !input.enabled ? await new SessionsRepository(trx).revokeOpenedBy(id, now) : undefined;
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'ssoProviderSaved', row.name, {
        id,
        connection: row.connection,
        domain: row.domain,
        enabled: input.enabled,
        clientSecretChanged: !!input.clientSecret,
        ...(sessionsEnded !== undefined ? { sessionsEnded } : {}),
      });
    });
    this.discovered.delete(id);
    return toSsoProvider((await repository.findProvider(id))!);
  }

  async delete(id: string, caller: Caller): Promise<void> {
    await this.database.transaction(async (trx) => {
      const providers = new IdentityRepository(trx);
      const existing = await providers.findProvider(id);
      if (!existing || !(await providers.deleteProvider(id))) throw new AppError('ssoProviderNotFound', { field: 'id' });
      // the sessions its logins opened end with it
      const sessionsEnded = await new SessionsRepository(trx).revokeOpenedBy(id, isoNow());
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'ssoProviderDeleted', existing.name, {
        id,
        sessionsEnded,
      });
    });
    this.discovered.delete(id);
  }

  private async enabledProvider(id: string, connection: TSsoConnection): Promise<IdentityProviderRow> {
    const provider = await new IdentityRepository(this.database.db).findProvider(id);
    if (!provider || Number(provider.enabled) !== 1 || provider.connection !== connection) {
      throw new AppError('ssoProviderNotFound');
    }
    return provider;
  }

  private async oidcConfiguration(provider: IdentityProviderRow): Promise<oidc.Configuration> {
    const cached = this.discovered.get(provider.id);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(provider.domain);
    parsePeerUrl(issuer.origin, this.config.peers.allowedHosts);
    let configuration: oidc.Configuration;
    try {
      configuration = await oidc.discovery(
        issuer,
        provider.client_id!,
        undefined,
        oidc.ClientSecretBasic(this.sealer.open(provider.client_secret_sealed!)),
        {
          [oidc.customFetch]: outboundFetch(this.config.peers),
          execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
          timeout: 15,
        },
      );
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('ssoProviderUnreachable');
    }
    oidc.enableNonRepudiationChecks(configuration);
    this.discovered.set(provider.id, { at: Date.now(), config: configuration });
    return configuration;
  }

  private async newLogin(providerId: string, extra: { requestId?: string; relayState?: string } = {}): Promise<SsoLoginRow> {
    const now = Date.now();
    const row: SsoLoginRow = {
      id: randomBytes(24).toString('base64url'),
      provider_id: providerId,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      code_verifier: oidc.randomPKCECodeVerifier(),
      request_id: extra.requestId ?? null,
      relay_state: extra.relayState ?? null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + SSO_LOGIN_TTL_SECONDS * 1000).toISOString(),
    };
    const logins = new IdentityRepository(this.database.db);
    await logins.deleteExpiredLogins(row.created_at);
    await logins.insertLogin(row);
    return row;
  }

  /** Starts an OpenID Connect login: the provider's authorization address (PKCE S256, state, nonce). */
  async startOidc(providerId: string): Promise<SsoStart> {
    const provider = await this.enabledProvider(providerId, 'oidc');
    const configuration = await this.oidcConfiguration(provider);
    const login = await this.newLogin(provider.id);
    const location = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: provider.redirect_uri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(login.code_verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
    return { location: location.href, loginId: login.id };
  }

  /**
   * Finishes an OpenID Connect login started in this browser (`loginId` from its cookie):
   * `POST sessions` gives the `state` the provider returned, which must be this login's;
   * `POST user/login/token` gives none and relies on the cookie and PKCE binding.
   */
  async finishOidc(
    input: { code: string; state?: string; redirectUri: string },
    loginId: string | undefined,
    meta: RequestMeta,
  ): Promise<TLoginResponse> {
    const login = loginId ? await new IdentityRepository(this.database.db).takeLogin(loginId, isoNow()) : undefined;
    if (!login) throw new AppError('ssoLoginNotStarted');
    if (input.state !== undefined && !sameText(input.state, login.state))
      throw new AppError('ssoStateMismatch', { field: 'state' });
    const provider = await this.enabledProvider(login.provider_id, 'oidc');
    if (input.redirectUri !== provider.redirect_uri) throw new AppError('ssoStateMismatch', { field: 'redirectUri' });
    const configuration = await this.oidcConfiguration(provider);
    const callback = new URL(provider.redirect_uri);
    callback.searchParams.set('code', input.code);
    callback.searchParams.set('state', login.state);
    // the login is bound to this one provider: its issuer is the one the answer must come from
    if (configuration.serverMetadata().authorization_response_iss_parameter_supported) {
      callback.searchParams.set('iss', configuration.serverMetadata().issuer);
    }
    let identity: ExternalIdentity;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: login.code_verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims?.sub) throw new AppError('ssoLoginFailed');
      identity = identityFrom(claims.iss, claims.sub, claims);
      // names and e-mail a provider keeps out of the ID token come from its userinfo endpoint
      if (lacksProfile(identity) && configuration.serverMetadata().userinfo_endpoint) {
        const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        identity = fillProfile(identity, identityFrom(claims.iss, claims.sub, userinfo));
      }
    } catch (error) {
      await this.auditRefusal(provider, meta, error instanceof Error ? error.message : 'token exchange failed');
      if (error instanceof AppError) throw error;
      throw new AppError('ssoLoginFailed');
    }
    const user = await resolveSsoAccount(this.database, provider, identity, meta.sourceIp);
    return this.startSession(user, provider, meta);
  }

  private saml(provider: IdentityProviderRow, cacheProvider: CacheProvider): SAML {
    const { SAML, ValidateInResponseTo } = samlPackage();
    return new SAML({
      callbackUrl: provider.redirect_uri,
      entryPoint: provider.sso_url!,
      issuer: this.samlEntityId,
      idpIssuer: provider.domain,
      idpCert: provider.idp_certificate!,
      audience: this.samlEntityId,
      wantAuthnResponseSigned: false,
      wantAssertionsSigned: true,
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      maxAssertionAgeMs: SAML_MAX_ASSERTION_AGE_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: SSO_LOGIN_TTL_SECONDS * 1000,
      cacheProvider,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
    });
  }

  /** Starts a SAML login: the identity provider's address with a deflated AuthnRequest (redirect binding). */
  async startSaml(providerId: string, relayState: string | undefined): Promise<SsoStart> {
    const provider = await this.enabledProvider(providerId, 'saml');
    let requestId: string | undefined;
    const capture: CacheProvider = {
      saveAsync: async (key, value) => {
        requestId = key;
        return { value, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    const location = await this.saml(provider, capture).getAuthorizeUrlAsync(relayState ?? '', undefined, {});
    if (!requestId) throw new AppError('ssoProviderInvalid');
    const login = await this.newLogin(provider.id, { requestId, ...(relayState ? { relayState } : {}) });
    return { location, loginId: login.id };
  }

  /**
   * Finishes a SAML login: the response must answer the request this browser started (its
   * cookie), carry an assertion signed by the configured certificate (node-saml: one assertion,
   * signature over exactly what is read), name this server as audience, be inside its time
   * window, and not have been used before.
   */
  async finishSaml(
    providerId: string,
    samlResponse: string,
    loginId: string | undefined,
    meta: RequestMeta,
  ): Promise<TLoginResponse> {
    const provider = await this.enabledProvider(providerId, 'saml');
    const login = loginId ? await new IdentityRepository(this.database.db).takeLogin(loginId, isoNow()) : undefined;
    if (!login || login.provider_id !== provider.id || !login.request_id) throw new AppError('ssoLoginNotStarted');
    const expected: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (key) => (key === login.request_id ? login.created_at : null),
      removeAsync: async () => null,
    };
    let profile: Profile | null;
    try {
      ({ profile } = await this.saml(provider, expected).validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (error) {
      await this.auditRefusal(provider, meta, error instanceof Error ? error.message : 'invalid response');
      throw new AppError('samlResponseInvalid');
    }
    if (!profile?.nameID) throw new AppError('samlResponseInvalid');
    const assertionId = this.assertionId(profile);
    if (!assertionId) throw new AppError('samlResponseInvalid');
    const keepUntil = new Date(Date.now() + SAML_MAX_ASSERTION_AGE_MS + SAML_CLOCK_SKEW_MS).toISOString();
    if (!(await new IdentityRepository(this.database.db).useAssertion(assertionId.slice(0, 255), keepUntil, isoNow()))) {
      await this.auditRefusal(provider, meta, 'assertion replayed');
      throw new AppError('samlResponseReplayed');
    }
    const identity: ExternalIdentity = {
      issuer: profile.issuer,
      subject: profile.nameID,
      email: firstString(profile.email, profile.mail, profile['urn:oid:0.9.2342.19200300.100.1.3']),
      preferredUsername: firstString(profile['uid'], profile['urn:oid:0.9.2342.19200300.100.1.1']) ?? profile.nameID,
      firstName: firstString(profile['givenName'], profile['urn:oid:2.5.4.42']),
      lastName: firstString(profile['sn'], profile['urn:oid:2.5.4.4']),
    };
    const user = await resolveSsoAccount(this.database, provider, identity, meta.sourceIp);
    return this.startSession(user, provider, meta);
  }

  /**
   * The session of a login through `provider`, which remembers the provider. The provider is
   * looked at again under a shared lock in the session's transaction: a login that finishes while
   * an administrator deletes or turns off the provider either commits first (and the change ends
   * its session) or finds the provider gone (`ssoProviderNotFound`), never a session left live.
   */
  private startSession(user: UserRow, provider: IdentityProviderRow, meta: RequestMeta): Promise<TLoginResponse> {
    return this.sessions.startSession(user, meta, 'ssoLoginSucceeded', {
      identityProviderId: provider.id,
      alsoInTransaction: async (trx) => {
        if (!(await new IdentityRepository(trx).lockEnabledProvider(provider.id, this.database.dialect))) {
          throw new AppError('ssoProviderNotFound');
        }
      },
    });
  }

  /** The ID of the (verified) assertion node-saml read. */
  private assertionId(profile: Profile): string | undefined {
    const xml = profile.getAssertionXml?.();
    if (!xml) return undefined;
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    return root?.getAttribute('ID') ?? undefined;
  }

  private async auditRefusal(provider: IdentityProviderRow, meta: RequestMeta, reason: string): Promise<void> {
    await new AuditRepository(this.database.db, this.database.dialect).record({
      type: 'ssoLoginRefused',
      actor: provider.name.slice(0, 128),
      subject: provider.name,
      details: { reason: reason.slice(0, 500) },
      sourceIp: meta.sourceIp,
    });
  }
}
