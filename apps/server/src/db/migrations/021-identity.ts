import type { Kysely } from 'kysely';

const time = 'varchar(32)';

/**
 * Single sign-on, trusted issuers and OAuth clients (docs/identity.md).
 *
 * - `identity_providers`: OpenID Connect and SAML 2.0 providers an administrator configured
 *   (the OIDC client secret sealed with the key-encryption key).
 * - `sso_logins`: a login started at a provider and not finished yet (state, nonce, PKCE
 *   verifier, SAML request id), bound to the browser by a cookie; used once, short-lived.
 * - `external_identities`: the stable link of a local user to a provider's subject
 *   (issuer + subject), made on the first SSO login.
 * - `saml_assertions`: ids of SAML assertions already used, kept until they expire (replay).
 * - `trusted_issuers`: authorization servers whose JWTs the API accepts (`authentication/*`).
 * - `oauth_clients`, `oauth_tokens`: this server's OAuth clients (`client/*`) and the access
 *   and refresh tokens issued to them, stored as SHA-256 hashes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('identity_providers')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(128)', (c) => c.notNull())
    .addColumn('connection', 'varchar(8)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('domain', 'varchar(512)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(256)')
    .addColumn('client_secret_sealed', 'text')
    .addColumn('redirect_uri', 'varchar(512)', (c) => c.notNull())
    .addColumn('sso_url', 'varchar(512)')
    .addColumn('idp_certificate', 'text')
    .addColumn('default_role', 'varchar(16)', (c) => c.notNull())
    .addColumn('allow_create', 'integer', (c) => c.notNull())
    .addColumn('allowed_domains', 'varchar(1024)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sso_logins')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider_id', 'varchar(36)', (c) => c.notNull().references('identity_providers.id').onDelete('cascade'))
    .addColumn('state', 'varchar(64)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(64)', (c) => c.notNull())
    .addColumn('code_verifier', 'varchar(128)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(128)')
    .addColumn('relay_state', 'varchar(1024)')
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_logins_expires_idx').on('sso_logins').column('expires_at').execute();
  await db.schema
    .createTable('external_identities')
    .addColumn('issuer', 'varchar(512)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', time, (c) => c.notNull())
    .addPrimaryKeyConstraint('external_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('external_identities_user_idx').on('external_identities').column('user_id').execute();
  await db.schema
    .createTable('saml_assertions')
    .addColumn('assertion_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('expires_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('trusted_issuers')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('issuer', 'varchar(512)', (c) => c.notNull().unique())
    .addColumn('jwk_set_uri', 'varchar(1024)', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'varchar(255)', (c) => c.notNull())
    .addColumn('owner_user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('resource_ids', 'varchar(1024)', (c) => c.notNull())
    .addColumn('scope', 'varchar(1024)', (c) => c.notNull())
    .addColumn('authorized_grant_types', 'varchar(256)', (c) => c.notNull())
    .addColumn('web_server_redirect_uri', 'varchar(2048)', (c) => c.notNull())
    .addColumn('authorities', 'varchar(1024)', (c) => c.notNull())
    .addColumn('additional_information', 'text')
    .addColumn('autoapprove', 'varchar(256)', (c) => c.notNull())
    .addColumn('access_token_validity', 'integer', (c) => c.notNull())
    .addColumn('refresh_token_validity', 'integer')
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_row_id', 'varchar(36)', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('scope', 'varchar(1024)', (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_tokens_client_idx').on('oauth_tokens').column('client_row_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_tokens',
    'oauth_clients',
    'trusted_issuers',
    'saml_assertions',
    'external_identities',
    'sso_logins',
    'identity_providers',
  ])
    await db.schema.dropTable(table).ifExists().execute();
}
