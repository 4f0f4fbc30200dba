import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TAuthenticator, TPage, TPageQuery } from '@manifold/contract';
import { paginate } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import type { AuthenticatorRow, WebAuthnChallengesTable } from '../../db/schema-security.js';

export type ChallengePurpose = 'attestation' | 'assertion';

function challengeDigest(challenge: string): string {
  return createHash('sha256').update(challenge).digest('hex');
}

function toAuthenticator(row: AuthenticatorRow): TAuthenticator {
  return { authenticatorId: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

/** Security keys, their challenges, and the escalation mark on sessions. */
export class SecurityKeysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(userId: number, page: TPageQuery): Promise<TPage<TAuthenticator>> {
    return paginate(
      this.db.selectFrom('authenticators').where('user_id', '=', userId),
      page,
      (base) => base.selectAll().orderBy('created_at').orderBy('id'),
      (rows) => rows.map(toAuthenticator),
    );
  }

  ofUser(userId: number): Promise<AuthenticatorRow[]> {
    return this.db.selectFrom('authenticators').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
  }

  async hasAny(userId: number): Promise<boolean> {
    const row = await this.db.selectFrom('authenticators').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  findOwn(userId: number, id: string): Promise<AuthenticatorRow | undefined> {
    return this.db.selectFrom('authenticators').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  findOwnByCredential(userId: number, credentialId: string): Promise<AuthenticatorRow | undefined> {
    return this.db
      .selectFrom('authenticators')
      .selectAll()
      .where('user_id', '=', userId)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
  }

  async credentialExists(credentialId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('authenticators')
      .select('id')
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(row: AuthenticatorRow): Promise<TAuthenticator> {
    await this.db.insertInto('authenticators').values(row).execute();
    return toAuthenticator(row);
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('authenticators').where('id', '=', id).execute();
  }

  /**
   * Moves the counter forward only (a concurrent assertion with the same or a lower counter
   * loses); answers whether it moved. Authenticators that do not count keep 0.
   */
  async advanceCounter(id: string, previous: number, next: number, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('authenticators')
      .set({ counter: next, last_used_at: now })
      .where('id', '=', id)
      .where('counter', '=', previous)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async saveChallenge(challenge: string, row: Omit<WebAuthnChallengesTable, 'challenge_sha256'>): Promise<void> {
    await this.db
      .insertInto('webauthn_challenges')
      .values({ ...row, challenge_sha256: challengeDigest(challenge) })
      .execute();
  }

  /** Takes a live challenge of this session and purpose: answers true once, then never again. */
  async consumeChallenge(
    challenge: string,
    userId: number,
    sessionId: string,
    purpose: ChallengePurpose,
    now: string,
  ): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webauthn_challenges')
      .where('challenge_sha256', '=', challengeDigest(challenge))
      .where('user_id', '=', userId)
      .where('session_id', '=', sessionId)
      .where('purpose', '=', purpose)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async purgeExpiredChallenges(now: string): Promise<void> {
    await this.db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
  }

  async escalateSession(sessionId: string, until: string): Promise<void> {
    await this.db.updateTable('sessions').set({ escalated: 1, escalated_until: until }).where('id', '=', sessionId).execute();
  }
}
