import { z } from 'zod';
import { ZRole } from './enums.js';

/**
 * Single sign-on (OpenID Connect, SAML 2.0), trusted issuers and OAuth clients (spec §3 SSO
 * config, Authorization server, Client; §5; §7 Session, `authentication/*`, `client/*`,
 * `admin/sso`; docs/identity.md). Merged into the error tokens, audit kinds and permissions.
 */

export const ssoConnections = ['oidc', 'saml'] as const;
export const ZSsoConnection = z.enum(ssoConnections);
export type TSsoConnection = z.infer<typeof ZSsoConnection>;

/** A comma-delimited list without spaces (spec §5). */
export const ZCommaList = z
  .string()
  .max(2048)
  .regex(/^[^\s,]+(,[^\s,]+)*$|^$/, 'a comma-delimited list without spaces');

/**
 * An identity provider as configured (`POST admin/sso`): the spec's SSO config fields (enabled,
 * domain, clientId, redirectUri, clientSecret, connection, defaultRole) plus what a provider of
 * several needs. `domain` is the OIDC issuer (discovery at `/.well-known/openid-configuration`)
 * or the SAML identity provider's entity id. The client secret is write-only.
 */
export const ZSsoProviderSaveRequest = z
  .object({
    id: z.string().max(36).optional(),
    /** Required (an empty one is `ssoProviderInvalid` on the field, like the other settings). */
    name: z.string().max(128),
    connection: ZSsoConnection,
    enabled: z.boolean(),
    domain: z.string().max(512),
    clientId: z.string().max(256).optional(),
    /** OIDC only; left out on an edit keeps the stored one. Never returned. */
    clientSecret: z.string().max(1024).optional(),
    /**
     * OIDC: the console's callback registered at the provider (`{PUBLIC_URL}/login/oidc`).
     * SAML: ignored; the server's assertion consumer `{PUBLIC_URL}/ui/user/saml2/acs/{id}` is used.
     */
    redirectUri: z.string().max(512).optional(),
    /** SAML: the identity provider's single sign-on (redirect binding) address. */
    ssoUrl: z.string().max(512).optional(),
    /** SAML: the identity provider's signing certificate (PEM). */
    idpCertificate: z.string().max(16_384).optional(),
    defaultRole: ZRole,
    /** Create a local account on a subject's first login. */
    allowCreate: z.boolean(),
    /** E-mail domains whose users may use this provider, comma-delimited; empty: any. */
    allowedDomains: ZCommaList.default(''),
  })
  .meta({ id: 'SsoProviderSaveRequest' });
export type TSsoProviderSaveRequest = z.input<typeof ZSsoProviderSaveRequest>;

export const ZSsoProvider = z
  .object({
    id: z.string(),
    name: z.string(),
    connection: ZSsoConnection,
    enabled: z.boolean(),
    domain: z.string(),
    clientId: z.string().nullable(),
    /** Whether a client secret is stored (it is never shown). */
    clientSecretSet: z.boolean(),
    redirectUri: z.string(),
    ssoUrl: z.string().nullable(),
    idpCertificate: z.string().nullable(),
    defaultRole: ZRole,
    allowCreate: z.boolean(),
    allowedDomains: z.string(),
    dateCreated: z.string(),
  })
  .meta({ id: 'SsoProvider' });
export type TSsoProvider = z.infer<typeof ZSsoProvider>;

/** `GET admin/sso`: what is in force. */
export const ZSsoConfig = z
  .object({
    enabled: z.boolean(),
    /** This server's SAML service-provider entity id (the audience assertions must name). */
    samlEntityId: z.string(),
    /** The audience JWTs of trusted issuers must name. */
    jwtAudience: z.string(),
    /** The OAuth token endpoint of this server. */
    tokenEndpoint: z.string(),
    data: z.array(ZSsoProvider),
  })
  .meta({ id: 'SsoConfig' });
export type TSsoConfig = z.infer<typeof ZSsoConfig>;

export const ZSsoProviderDeleteRequest = z.object({ id: z.string().min(1).max(36) }).meta({ id: 'SsoProviderDeleteRequest' });

/** What the login page offers (anonymous). */
export const ZSsoLoginOption = z.object({ id: z.string(), name: z.string(), connection: ZSsoConnection });
export const ZSsoLoginOptions = z.object({ data: z.array(ZSsoLoginOption) }).meta({ id: 'SsoLoginOptions' });
export type TSsoLoginOption = z.infer<typeof ZSsoLoginOption>;

export const ZSsoStartQuery = z.object({ RelayState: z.string().max(512).optional() });

/** `POST sessions {code, state, redirectUri}` (spec §7). */
export const ZOidcSessionRequest = z
  .object({
    code: z.string().min(1).max(2048),
    state: z.string().min(1).max(128),
    redirectUri: z.string().min(1).max(512),
  })
  .meta({ id: 'OidcSessionRequest' });
/** `POST user/login/token {code, redirectUri}` (spec §7). */
export const ZOidcTokenLoginRequest = z
  .object({ code: z.string().min(1).max(2048), redirectUri: z.string().min(1).max(512) })
  .meta({ id: 'OidcTokenLoginRequest' });
/** `POST user/login/saml2/sso/{id} {samlResponse}` (spec §7): the base64 SAMLResponse. */
export const ZSamlLoginRequest = z.object({ samlResponse: z.string().min(1).max(1_000_000) }).meta({ id: 'SamlLoginRequest' });
export const ZSsoProviderParams = z.object({ id: z.string().min(1).max(36) });

/** Authorization server (spec §3): `authentication/add {issuer, jwkSetUri}`. */
export const ZTrustedIssuer = z
  .object({ issuer: z.string(), jwkSetUri: z.string(), dateCreated: z.string() })
  .meta({ id: 'AuthorizationServer' });
export type TTrustedIssuer = z.infer<typeof ZTrustedIssuer>;
export const ZTrustedIssuerAddRequest = z
  .object({ issuer: z.string().max(512).optional(), jwkSetUri: z.string().max(1024).optional() })
  .meta({ id: 'AuthorizationServerAddRequest' });
export const ZTrustedIssuerDeleteRequest = z
  .object({ issuer: z.string().max(512).optional() })
  .meta({ id: 'AuthorizationServerDeleteRequest' });
export type TTrustedIssuerAddRequest = z.infer<typeof ZTrustedIssuerAddRequest>;

export const oauthGrantTypes = ['client_credentials', 'refresh_token'] as const;

/**
 * Client (spec §3); every list comma-delimited without spaces (§5; a list with spaces or empty
 * entries is malformed, 400, the same for each list); validities in seconds.
 */
export const ZOauthClientAddRequest = z
  .object({
    clientId: z.string().max(128).optional(),
    resourceIds: ZCommaList.optional(),
    scope: ZCommaList.optional(),
    authorizedGrantTypes: ZCommaList.max(256).optional(),
    /** Absolute http(s) addresses (checked by the server: `clientRedirectUriEmpty`). */
    webServerRedirectUri: ZCommaList.optional(),
    authorities: ZCommaList.optional(),
    additionalInformation: z.string().max(4096).optional(),
    autoapprove: z.string().max(256).optional(),
    accessTokenValidity: z.number().int().optional(),
    refreshTokenValidity: z.number().int().optional(),
  })
  .meta({ id: 'ClientAddRequest' });
export type TOauthClientAddRequest = z.infer<typeof ZOauthClientAddRequest>;

export const ZOauthClient = z
  .object({
    clientId: z.string(),
    resourceIds: z.string(),
    scope: z.string(),
    authorizedGrantTypes: z.string(),
    webServerRedirectUri: z.string(),
    authorities: z.string(),
    additionalInformation: z.string().nullable(),
    autoapprove: z.string(),
    accessTokenValidity: z.number().int(),
    refreshTokenValidity: z.number().int().nullable(),
    dateCreated: z.string(),
  })
  .meta({ id: 'Client' });
export type TOauthClient = z.infer<typeof ZOauthClient>;
/** `client/add` answers the client with its secret, shown this once. */
export const ZOauthClientCreated = ZOauthClient.extend({ clientSecret: z.string() }).meta({ id: 'ClientCreated' });
export type TOauthClientCreated = z.infer<typeof ZOauthClientCreated>;
export const ZOauthClientDeleteRequest = z
  .object({ clientId: z.string().max(128).optional() })
  .meta({ id: 'ClientDeleteRequest' });

export const identityErrorTokens = {
  ssoProviderNotFound: 'The identity provider does not exist or is not enabled',
  ssoProviderInvalid: 'The identity provider settings are not valid',
  ssoProviderUnreachable: 'The identity provider could not be reached or answered with an invalid document',
  ssoLoginNotStarted: 'No single sign-on login was started in this browser, or it has expired',
  ssoStateMismatch: 'The sign-on answer does not belong to the login started in this browser',
  ssoLoginFailed: 'The identity provider did not confirm the login',
  ssoUserNotAllowed: 'This account may not sign in with this identity provider',
  ssoAccountNotLinked:
    'A local account with this name exists and is not set up for single sign-on; an administrator must enable single sign-on for it first',
  samlResponseInvalid: 'The SAML response is not valid',
  samlResponseReplayed: 'The SAML assertion was already used',
  issuerEmpty: 'issuer is required',
  jwkSetUriEmpty: 'jwkSetUri is required',
  clientIdEmpty: 'clientId is required: letters, digits, ".", "_", "~" and "-" (at most 128 characters)',
  clientIdTaken: 'A client with this clientId already exists',
  clientGrantTypesInvalid: 'authorizedGrantTypes is required: a comma-delimited list of client_credentials and refresh_token',
  clientRedirectUriEmpty:
    'webServerRedirectUri is required: one or more absolute http or https addresses, comma-delimited without spaces',
  clientTokenValidityInvalid:
    'accessTokenValidity is required: whole seconds between 60 and 86400 (refreshTokenValidity up to 31536000)',
  clientAuthoritiesInvalid: 'authorities may name only ADMIN, USER, ROLE_ADMIN or ROLE_USER',
} as const;

export const identityAuditEventTypes = [
  'ssoLoginSucceeded',
  'ssoLoginRefused',
  'ssoUserCreated',
  'ssoProviderSaved',
  'ssoProviderDeleted',
  'trustedIssuerAdded',
  'trustedIssuerDeleted',
  'oauthClientAdded',
  'oauthClientDeleted',
] as const;
