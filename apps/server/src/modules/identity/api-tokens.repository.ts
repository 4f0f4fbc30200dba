import type { Insertable, Kysely } from 'kysely';
import type { TOauthClient, TPage, TPageQuery, TTrustedIssuer } from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { OauthClientRow, OauthClientsTable, OauthTokensTable, TrustedIssuerRow } from '../../db/schema-identity.js';

export function toOauthClient(row: OauthClientRow): TOauthClient {
  return {
    clientId: row.client_id,
    resourceIds: row.resource_ids,
    scope: row.scope,
    authorizedGrantTypes: row.authorized_grant_types,
    webServerRedirectUri: row.web_server_redirect_uri,
    authorities: row.authorities,
    additionalInformation: row.additional_information,
    autoapprove: row.autoapprove,
    accessTokenValidity: Number(row.access_token_validity),
    refreshTokenValidity: row.refresh_token_validity === null ? null : Number(row.refresh_token_validity),
    dateCreated: row.created_at,
  };
}

const toTrustedIssuer = (row: TrustedIssuerRow): TTrustedIssuer => ({
  issuer: row.issuer,
  jwkSetUri: row.jwk_set_uri,
  dateCreated: row.created_at,
});

/** Trusted token issuers (`authentication/*`). */
export class TrustedIssuersRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(page: TPageQuery): Promise<TPage<TTrustedIssuer>> {
    return paginate(
      this.db.selectFrom('trusted_issuers'),
      page,
      (base) => base.selectAll().orderBy('issuer'),
      (rows) => rows.map(toTrustedIssuer),
    );
  }

  find(issuer: string): Promise<TrustedIssuerRow | undefined> {
    return this.db.selectFrom('trusted_issuers').selectAll().where('issuer', '=', issuer).executeTakeFirst();
  }

  async insert(row: TrustedIssuerRow): Promise<void> {
    await this.db.insertInto('trusted_issuers').values(row).execute();
  }

  async delete(issuer: string): Promise<boolean> {
    const result = await this.db.deleteFrom('trusted_issuers').where('issuer', '=', issuer).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** This server's OAuth clients and the tokens issued to them (hashes only). */
export class OauthClientsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(page: TPageQuery): Promise<TPage<TOauthClient>> {
    return paginate(
      this.db.selectFrom('oauth_clients'),
      page,
      (base) => base.selectAll().orderBy('client_id'),
      (rows) => rows.map(toOauthClient),
    );
  }

  findByClientId(clientId: string): Promise<OauthClientRow | undefined> {
    return this.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  }

  async insert(row: Insertable<OauthClientsTable>): Promise<void> {
    await this.db.insertInto('oauth_clients').values(row).execute();
  }

  /** Deletes the client; its tokens go with it (foreign key cascade). */
  async delete(clientId: string): Promise<boolean> {
    const row = await this.findByClientId(clientId);
    if (!row) return false;
    await this.db.deleteFrom('oauth_tokens').where('client_row_id', '=', row.id).execute();
    const result = await this.db.deleteFrom('oauth_clients').where('id', '=', row.id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async insertToken(row: Insertable<OauthTokensTable>): Promise<void> {
    await this.db.insertInto('oauth_tokens').values(row).execute();
  }

  /** A live token of this kind with its client (a deleted client has no tokens left). */
  async findLiveToken(tokenHash: string, kind: 'access' | 'refresh', now: string) {
    return this.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_tokens.client_row_id')
      .selectAll('oauth_clients')
      .select(['oauth_tokens.scope as token_scope', 'oauth_tokens.expires_at as token_expires_at'])
      .where('oauth_tokens.token_hash', '=', tokenHash)
      .where('oauth_tokens.kind', '=', kind)
      .where('oauth_tokens.expires_at', '>', now)
      .executeTakeFirst();
  }

  /** Removes a token (a refresh token is used once: rotation). False when it was already gone. */
  async deleteToken(tokenHash: string): Promise<boolean> {
    const result = await this.db.deleteFrom('oauth_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteExpiredTokens(now: string): Promise<void> {
    await this.db.deleteFrom('oauth_tokens').where('expires_at', '<=', now).execute();
  }
}
