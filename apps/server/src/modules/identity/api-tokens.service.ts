import { randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type {
  TOauthClientAddRequest,
  TOauthClientCreated,
  TPage,
  TPageQuery,
  TRole,
  TTrustedIssuer,
  TTrustedIssuerAddRequest,
  TOauthClient,
} from '@manifold/contract';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { OauthClientRow } from '../../db/schema-identity.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { parsePeerUrl } from '../../peers/http-client.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { UsersRepository } from '../users/users.repository.js';
import { normalizeUsername } from '../users/usernames.js';
import { IdentityRepository } from './identity.repository.js';
import { OauthClientsRepository, TrustedIssuersRepository, toOauthClient } from './api-tokens.repository.js';
import {
  KNOWN_AUTHORITIES,
  authoritiesFromClaims,
  commaList,
  isHttpAddress,
  roleFromAuthorities,
  secretHash,
  secretMatches,
} from './identity-rules.js';
import { outboundFetch } from './outbound-fetch.js';

/** Signature algorithms accepted on trusted issuers' JWTs (asymmetric only: no `none`, no HMAC). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const ACCESS_PREFIX = 'mfat_';
const REFRESH_PREFIX = 'mfrt_';
const GRANT_TYPES = new Set(['client_credentials', 'refresh_token']);
const MIN_ACCESS_VALIDITY = 60;
const MAX_ACCESS_VALIDITY = 86_400;
const MAX_REFRESH_VALIDITY = 31_536_000;

/** An answer of the token endpoint (RFC 6749 §5.1), or its error (§5.2). */
export type TokenAnswer =
  | {
      ok: true;
      body: { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string; refresh_token?: string };
    }
  | { ok: false; status: 400 | 401; body: { error: string; error_description: string } };

export interface TokenRequest {
  grantType: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  refreshToken: string | undefined;
  scope: string | undefined;
}

const tokenError = (status: 400 | 401, error: string, description: string): TokenAnswer => ({
  ok: false,
  status,
  body: { error, error_description: description },
});

/**
 * Trusted issuers (`authentication/*`) and this server's OAuth clients (`client/*`, the token
 * endpoint), and the two bearer verifiers that let their tokens call the API (docs/identity.md).
 */
export class ApiTokensService {
  /** Key sets per issuer, fetched and cached by `jose` (keyed by issuer and JWKS address). */
  private readonly keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  constructor(
    private readonly database: Database,
    private readonly config: Config,
  ) {}

  /** The audience a trusted issuer's JWT must name: this server's canonical address. */
  get jwtAudience(): string {
    return this.config.publicUrl;
  }

  listIssuers(page: TPageQuery): Promise<TPage<TTrustedIssuer>> {
    return new TrustedIssuersRepository(this.database.db).list(page);
  }

  async addIssuer(input: TTrustedIssuerAddRequest, caller: Caller): Promise<TTrustedIssuer> {
    const issuer = input.issuer?.trim() ?? '';
    const jwkSetUri = input.jwkSetUri?.trim() ?? '';
    const problems = new ErrorCollector();
    if (!issuer) problems.add('issuerEmpty', 'issuer');
    if (!jwkSetUri) problems.add('jwkSetUriEmpty', 'jwkSetUri');
    problems.throwIfAny();
    const checked = parsePeerUrl(jwkSetUri.replace(/[?#].*$/s, ''), this.config.peers.allowedHosts);
    const jwksUrl = new URL(jwkSetUri);
    if (jwksUrl.origin !== checked.origin) throw new AppError('httpClientBadUrl', { field: 'jwkSetUri' });
    const row = { id: randomUUID(), issuer, jwk_set_uri: jwksUrl.href, created_at: isoNow() };
    try {
      await this.database.transaction(async (trx) => {
        const issuers = new TrustedIssuersRepository(trx);
        if (await issuers.find(issuer)) throw new AppError('issuerAlreadyexists', { field: 'issuer' });
        await issuers.insert(row);
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'trustedIssuerAdded', issuer, {
          jwkSetUri: row.jwk_set_uri,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('issuerAlreadyexists', { field: 'issuer' });
      throw error;
    }
    return { issuer, jwkSetUri: row.jwk_set_uri, dateCreated: row.created_at };
  }

  async deleteIssuer(issuerInput: string | undefined, caller: Caller): Promise<void> {
    const issuer = issuerInput?.trim() ?? '';
    if (!issuer) throw new AppError('issuerEmpty', { field: 'issuer' });
    await this.database.transaction(async (trx) => {
      if (!(await new TrustedIssuersRepository(trx).delete(issuer))) throw new AppError('issuerNotFound', { field: 'issuer' });
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'trustedIssuerDeleted', issuer);
    });
    for (const key of this.keySets.keys()) if (key.startsWith(`${issuer}\n`)) this.keySets.delete(key);
  }

  listClients(page: TPageQuery): Promise<TPage<TOauthClient>> {
    return new OauthClientsRepository(this.database.db).list(page);
  }

  async addClient(input: TOauthClientAddRequest, caller: Caller): Promise<TOauthClientCreated> {
    const clientId = input.clientId?.trim() ?? '';
    // every list is a ZCommaList: one with spaces or empty entries never gets here (400)
    const grantTypes = commaList(input.authorizedGrantTypes);
    const redirectUris = commaList(input.webServerRedirectUri);
    const authorities = commaList(input.authorities);
    const problems = new ErrorCollector();
    if (!clientId || !/^[A-Za-z0-9._~-]{1,128}$/.test(clientId)) problems.add('clientIdEmpty', 'clientId');
    if (
      grantTypes.length === 0 ||
      grantTypes.some((grant) => !GRANT_TYPES.has(grant)) ||
      !grantTypes.includes('client_credentials')
    ) {
      problems.add('clientGrantTypesInvalid', 'authorizedGrantTypes');
    }
    if (redirectUris.length === 0 || !redirectUris.every(isHttpAddress)) {
      problems.add('clientRedirectUriEmpty', 'webServerRedirectUri');
    }
    const access = input.accessTokenValidity;
    if (access === undefined || access < MIN_ACCESS_VALIDITY || access > MAX_ACCESS_VALIDITY) {
      problems.add('clientTokenValidityInvalid', 'accessTokenValidity');
    }
    const refresh = input.refreshTokenValidity;
    if (refresh !== undefined && (refresh < MIN_ACCESS_VALIDITY || refresh > MAX_REFRESH_VALIDITY)) {
      problems.add('clientTokenValidityInvalid', 'refreshTokenValidity');
    }
    if (authorities.some((authority) => !KNOWN_AUTHORITIES.has(authority.toUpperCase()))) {
      problems.add('clientAuthoritiesInvalid', 'authorities');
    }
    problems.throwIfAny();

    const clientSecret = randomBytes(32).toString('base64url');
    const row = {
      id: randomUUID(),
      client_id: clientId,
      secret_hash: secretHash(clientSecret),
      owner_user_id: caller.userId,
      resource_ids: input.resourceIds ?? '',
      scope: input.scope ?? '',
      authorized_grant_types: grantTypes.join(','),
      web_server_redirect_uri: redirectUris.join(','),
      authorities: authorities.length > 0 ? authorities.join(',') : 'USER',
      additional_information: input.additionalInformation ?? null,
      autoapprove: input.autoapprove ?? '',
      access_token_validity: access!,
      refresh_token_validity: grantTypes.includes('refresh_token') ? (refresh ?? 30 * 86_400) : (refresh ?? null),
      created_at: isoNow(),
    };
    try {
      await this.database.transaction(async (trx) => {
        const clients = new OauthClientsRepository(trx);
        if (await clients.findByClientId(clientId)) throw new AppError('clientIdTaken', { field: 'clientId' });
        await clients.insert(row);
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'oauthClientAdded', clientId, {
          authorities: row.authorities,
          authorizedGrantTypes: row.authorized_grant_types,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('clientIdTaken', { field: 'clientId' });
      throw error;
    }
    return { ...toOauthClient(row), clientSecret };
  }

  async deleteClient(clientIdInput: string | undefined, caller: Caller): Promise<void> {
    const clientId = clientIdInput?.trim() ?? '';
    await this.database.transaction(async (trx) => {
      if (!clientId || !(await new OauthClientsRepository(trx).delete(clientId))) {
        throw new AppError('clientDoesNotExist', { field: 'clientId' });
      }
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'oauthClientDeleted', clientId);
    });
  }

  /** The token endpoint: client credentials and refresh tokens (RFC 6749 §4.4, §6). */
  async token(request: TokenRequest): Promise<TokenAnswer> {
    if (!request.clientId || !request.clientSecret) {
      return tokenError(401, 'invalid_client', 'Client authentication is required');
    }
    const clients = new OauthClientsRepository(this.database.db);
    const client = await clients.findByClientId(request.clientId);
    if (!client || !secretMatches(request.clientSecret, client.secret_hash)) {
      return tokenError(401, 'invalid_client', 'Unknown client or wrong secret');
    }
    const grants = commaList(client.authorized_grant_types);
    if (request.grantType !== 'client_credentials' && request.grantType !== 'refresh_token') {
      return tokenError(400, 'unsupported_grant_type', 'grant_type must be client_credentials or refresh_token');
    }
    if (!grants.includes(request.grantType)) {
      return tokenError(400, 'unauthorized_client', `This client may not use ${request.grantType}`);
    }
    const allowedScopes = commaList(client.scope);
    let scopes: string[];
    if (request.grantType === 'refresh_token') {
      const presented = request.refreshToken ?? '';
      const hash = secretHash(presented);
      const live = presented.startsWith(REFRESH_PREFIX) ? await clients.findLiveToken(hash, 'refresh', isoNow()) : undefined;
      if (!live || live.id !== client.id || !(await clients.deleteToken(hash))) {
        return tokenError(400, 'invalid_grant', 'The refresh token is not valid');
      }
      scopes = live.token_scope.split(' ').filter(Boolean);
    } else {
      const asked = (request.scope ?? '').split(' ').filter(Boolean);
      if (asked.some((scope) => !allowedScopes.includes(scope))) {
        return tokenError(400, 'invalid_scope', 'A requested scope is not granted to this client');
      }
      scopes = asked.length > 0 ? asked : allowedScopes;
    }
    return { ok: true, body: await this.issueTokens(client, scopes, grants.includes('refresh_token')) };
  }

  private async issueTokens(client: OauthClientRow, scopes: string[], withRefresh: boolean) {
    const now = Date.now();
    const accessValidity = Number(client.access_token_validity);
    const accessToken = `${ACCESS_PREFIX}${randomBytes(32).toString('base64url')}`;
    const scope = scopes.join(' ');
    const refreshToken = withRefresh ? `${REFRESH_PREFIX}${randomBytes(32).toString('base64url')}` : undefined;
    await this.database.transaction(async (trx) => {
      const clients = new OauthClientsRepository(trx);
      await clients.deleteExpiredTokens(new Date(now).toISOString());
      await clients.insertToken({
        token_hash: secretHash(accessToken),
        client_row_id: client.id,
        kind: 'access',
        scope,
        expires_at: new Date(now + accessValidity * 1000).toISOString(),
        created_at: new Date(now).toISOString(),
      });
      if (refreshToken) {
        await clients.insertToken({
          token_hash: secretHash(refreshToken),
          client_row_id: client.id,
          kind: 'refresh',
          scope,
          expires_at: new Date(now + Number(client.refresh_token_validity ?? 0) * 1000).toISOString(),
          created_at: new Date(now).toISOString(),
        });
      }
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer' as const,
      expires_in: accessValidity,
      scope,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    };
  }

  /**
   * Bearer verifier for this server's client access tokens: live only while the token has not
   * expired and the client still exists (deleting a client deletes its tokens). The client acts
   * for the administrator who created it, with the role its authorities grant.
   */
  readonly verifyClientToken = async (token: string, sourceIp: string): Promise<Caller | undefined> => {
    if (!token.startsWith(ACCESS_PREFIX) || token.length > 128) return undefined;
    const live = await new OauthClientsRepository(this.database.db).findLiveToken(secretHash(token), 'access', isoNow());
    if (!live) return undefined;
    const owner = await new IdentityRepository(this.database.db).findUser(live.owner_user_id);
    if (!owner) return undefined;
    return this.callerFor(owner, roleFromAuthorities(commaList(live.authorities), owner.role as TRole), {
      tokenId: `client:${live.client_id}`,
      via: 'client',
      sourceIp,
    });
  };

  /**
   * Bearer verifier for JWTs of trusted issuers: the issuer must be on the list at the time of
   * the call; the signature is checked against the issuer's key set (fetched through the peer
   * HTTP client's address rules and cached), with an allow-listed asymmetric algorithm, the
   * audience this server's `PUBLIC_URL`, and a live `exp` (and `nbf`). The token acts as the
   * local user its `preferred_username` (else `sub`) names, with the role its authorities grant.
   */
  readonly verifyIssuerToken = async (token: string, sourceIp: string): Promise<Caller | undefined> => {
    if (token.length > 16_384) return undefined;
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    if (typeof unverified.iss !== 'string') return undefined;
    const trusted = await new TrustedIssuersRepository(this.database.db).find(unverified.iss);
    if (!trusted) return undefined;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet(trusted.issuer, trusted.jwk_set_uri), {
        issuer: trusted.issuer,
        audience: this.jwtAudience,
        algorithms: JWT_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: 30,
      }));
    } catch {
      return undefined;
    }
    const name = typeof payload.preferred_username === 'string' ? payload.preferred_username : payload.sub!;
    const user = await new UsersRepository(this.database.db, this.database.dialect).findByUsername(name);
    // the account is found by its identity key (a confusable skeleton: `rnona` and `mоna` with a
    // Cyrillic `о` share the key of `mona`); another name at the issuer is another person
    if (!user || user.username.toLowerCase() !== normalizeUsername(name).toLowerCase()) return undefined;
    return this.callerFor(user, roleFromAuthorities(authoritiesFromClaims(payload), user.role as TRole), {
      tokenId: `issuer:${trusted.issuer}:${payload.jti ?? payload.sub}`,
      via: 'issuer',
      sourceIp,
    });
  };

  private keySet(issuer: string, jwkSetUri: string) {
    const key = `${issuer}\n${jwkSetUri}`;
    let keySet = this.keySets.get(key);
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(jwkSetUri), {
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
        [customFetch]: outboundFetch(this.config.peers),
      });
      this.keySets.set(key, keySet);
    }
    return keySet;
  }

  private callerFor(
    user: Caller['user'],
    role: TRole,
    token: { tokenId: string; via: 'client' | 'issuer'; sourceIp: string },
  ): Caller {
    return {
      userId: user.id,
      username: user.username,
      role,
      sessionId: token.tokenId,
      escalated: false,
      escalatedUntil: null,
      sourceIp: token.sourceIp,
      user,
      via: token.via,
    };
  }
}
