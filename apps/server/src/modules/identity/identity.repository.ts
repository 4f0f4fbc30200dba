import type { Kysely, Insertable } from 'kysely';
import type { TSsoProvider, TSsoConnection, TRole } from '@manifold/contract';
import { type Dialect, isUniqueViolation } from '../../db/dialect.js';
import type { DB, UserRow } from '../../db/schema.js';
import type { IdentityProviderRow, IdentityProvidersTable, SsoLoginRow, SsoLoginsTable } from '../../db/schema-identity.js';

export function toSsoProvider(row: IdentityProviderRow): TSsoProvider {
  return {
    id: row.id,
    name: row.name,
    connection: row.connection as TSsoConnection,
    enabled: Number(row.enabled) === 1,
    domain: row.domain,
    clientId: row.client_id,
    clientSecretSet: row.client_secret_sealed !== null,
    redirectUri: row.redirect_uri,
    ssoUrl: row.sso_url,
    idpCertificate: row.idp_certificate,
    defaultRole: row.default_role as TRole,
    allowCreate: Number(row.allow_create) === 1,
    allowedDomains: row.allowed_domains,
    dateCreated: row.created_at,
  };
}

/** Identity providers, logins in progress, links to external subjects and used SAML assertions. */
export class IdentityRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findUser(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listProviders(): Promise<IdentityProviderRow[]> {
    return this.db.selectFrom('identity_providers').selectAll().orderBy('name').orderBy('id').execute();
  }

  findProvider(id: string): Promise<IdentityProviderRow | undefined> {
    return this.db.selectFrom('identity_providers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Whether the provider is there and turned on, under a shared row lock until the transaction
   * ends: a login's session is written only while no one deletes or turns off the provider, so the
   * change's revocation of its sessions (same transaction as the change) sees the session.
   */
  async lockEnabledProvider(id: string, dialect: Pick<Dialect, 'forShare'>): Promise<boolean> {
    const row = await dialect
      .forShare(this.db.selectFrom('identity_providers').select('enabled').where('id', '=', id))
      .executeTakeFirst();
    return row !== undefined && Number(row.enabled) === 1;
  }

  async insertProvider(row: Insertable<IdentityProvidersTable>): Promise<void> {
    await this.db.insertInto('identity_providers').values(row).execute();
  }

  async updateProvider(id: string, changes: Partial<Insertable<IdentityProvidersTable>>): Promise<void> {
    await this.db.updateTable('identity_providers').set(changes).where('id', '=', id).execute();
  }

  async deleteProvider(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('identity_providers').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async insertLogin(row: Insertable<SsoLoginsTable>): Promise<void> {
    await this.db.insertInto('sso_logins').values(row).execute();
  }

  /**
   * Takes a login in progress out of the table (each is used once, whatever the outcome) and
   * answers it when it had not expired.
   */
  async takeLogin(id: string, now: string): Promise<SsoLoginRow | undefined> {
    const row = await this.db.selectFrom('sso_logins').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const taken = await this.db.deleteFrom('sso_logins').where('id', '=', id).executeTakeFirst();
    if (Number(taken.numDeletedRows) === 0) return undefined; // a concurrent request took it first
    return row.expires_at > now ? row : undefined;
  }

  async deleteExpiredLogins(now: string): Promise<void> {
    await this.db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
  }

  /**
   * The user linked to exactly this issuer and subject; `'collision'` when the database took
   * another link for this one. MariaDB's default collation compares text ignoring case, accents
   * and trailing spaces, so there `SUB-1`, `süb-1` or `sub-1 ` would find the link of `sub-1` —
   * another person at the provider (subjects are exact strings) — and the key could not hold both.
   * Migrations 038 and 039 make both columns compare exactly (`utf8mb4_nopad_bin`), as SQLite and
   * PostgreSQL do; the check stays for a database whose collation was changed by hand.
   */
  async findLinkedUserId(issuer: string, subject: string): Promise<number | 'collision' | undefined> {
    const rows = await this.db
      .selectFrom('external_identities')
      .select(['issuer', 'subject', 'user_id'])
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .execute();
    if (rows.length === 0) return undefined;
    return rows.find((row) => row.issuer === issuer && row.subject === subject)?.user_id ?? 'collision';
  }

  async link(issuer: string, subject: string, userId: number, now: string): Promise<void> {
    await this.db.insertInto('external_identities').values({ issuer, subject, user_id: userId, created_at: now }).execute();
  }

  /** Records a SAML assertion id; false when it was already used (a replay). */
  async useAssertion(assertionId: string, expiresAt: string, now: string): Promise<boolean> {
    await this.db.deleteFrom('saml_assertions').where('expires_at', '<=', now).execute();
    try {
      await this.db.insertInto('saml_assertions').values({ assertion_id: assertionId, expires_at: expiresAt }).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
}
