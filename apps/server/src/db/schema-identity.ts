import type { Selectable } from 'kysely';

/** Tables of migration 021 (single sign-on, trusted issuers, OAuth clients; docs/identity.md). */
export interface IdentityProvidersTable {
  id: string;
  name: string;
  /** `oidc` or `saml`. */
  connection: string;
  enabled: number;
  /** OIDC: the issuer URL (discovery); SAML: the identity provider's entity id. */
  domain: string;
  client_id: string | null;
  client_secret_sealed: string | null;
  redirect_uri: string;
  sso_url: string | null;
  idp_certificate: string | null;
  default_role: string;
  allow_create: number;
  /** Comma-delimited e-mail domains whose users may use this provider; empty: any. */
  allowed_domains: string;
  created_at: string;
  updated_at: string;
}

export interface SsoLoginsTable {
  id: string;
  provider_id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  request_id: string | null;
  relay_state: string | null;
  created_at: string;
  expires_at: string;
}

export interface ExternalIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: number;
  created_at: string;
}

export interface SamlAssertionsTable {
  assertion_id: string;
  expires_at: string;
}

export interface TrustedIssuersTable {
  id: string;
  issuer: string;
  jwk_set_uri: string;
  created_at: string;
}

export interface OauthClientsTable {
  id: string;
  client_id: string;
  secret_hash: string;
  owner_user_id: number;
  resource_ids: string;
  scope: string;
  authorized_grant_types: string;
  web_server_redirect_uri: string;
  authorities: string;
  additional_information: string | null;
  autoapprove: string;
  access_token_validity: number;
  refresh_token_validity: number | null;
  created_at: string;
}

export interface OauthTokensTable {
  token_hash: string;
  client_row_id: string;
  /** `access` or `refresh`. */
  kind: string;
  scope: string;
  expires_at: string;
  created_at: string;
}

export interface IdentityTables {
  identity_providers: IdentityProvidersTable;
  sso_logins: SsoLoginsTable;
  external_identities: ExternalIdentitiesTable;
  saml_assertions: SamlAssertionsTable;
  trusted_issuers: TrustedIssuersTable;
  oauth_clients: OauthClientsTable;
  oauth_tokens: OauthTokensTable;
}

export type IdentityProviderRow = Selectable<IdentityProvidersTable>;
export type SsoLoginRow = Selectable<SsoLoginsTable>;
export type TrustedIssuerRow = Selectable<TrustedIssuersTable>;
export type OauthClientRow = Selectable<OauthClientsTable>;
