import type { Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { DB, NewSessionRow } from '../../db/schema.js';
import { profileColumns, type UserProfileRow } from '../users/users.repository.js';

/**
 * Every authenticated request runs this: compiled once (`precompiled`), not built per call, and
 * selecting only what a caller needs (the session's escalation, the user's profile columns).
 */
const findLiveQuery = precompiled((db: Kysely<DB>, args: { sessionId: string; userId: number; now: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.escalated as s_escalated', 'sessions.escalated_until as s_escalated_until'])
    .select(profileColumns.map((column) => `users.${column}` as const))
    .where('sessions.id', '=', args.sessionId)
    .where('sessions.user_id', '=', args.userId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', args.now),
);

/** A live session's escalation columns next to its user's profile columns (one row of the joined query). */
export type LiveSessionRow = UserProfileRow & { s_escalated: number; s_escalated_until: string | null };

export class SessionsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async create(session: NewSessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(session).execute();
  }

  /**
   * The live session and its user, in one query: unrevoked, unexpired, user still present. The
   * row is answered as it comes (no copy per request); it holds the user's profile columns. At
   * once where the database answers at once (SQLite).
   */
  findLive(sessionId: string, userId: number, now: string): LiveSessionRow | undefined | Promise<LiveSessionRow | undefined> {
    const rows = findLiveQuery(this.db, { sessionId, userId, now });
    return rows instanceof Promise ? rows.then(([row]) => row) : rows[0];
  }

  /**
   * Ends a session; answers whether this call ended it (false: it was already revoked, or is
   * gone with its user). The row lock the update takes orders it with every other revocation.
   */
  async revoke(sessionId: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Ends a session that is being refreshed and answers what the new one carries over: when its
   * login happened and the identity provider that opened it. Undefined when this call did not
   * end it (see `revoke`).
   */
  async revokeForRefresh(
    sessionId: string,
    now: string,
  ): Promise<{ loginAt: string; identityProviderId: string | null } | undefined> {
    if (!(await this.revoke(sessionId, now))) return undefined;
    const row = await this.db
      .selectFrom('sessions')
      .select(['login_at', 'created_at', 'identity_provider_id'])
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    // no login time: a row an older server wrote after migration 037; its creation is the best known
    return { loginAt: row.login_at ?? row.created_at, identityProviderId: row.identity_provider_id };
  }

  /** Ends every live session an identity provider's logins opened (refreshed ones included); answers how many. */
  async revokeOpenedBy(identityProviderId: string, now: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('identity_provider_id', '=', identityProviderId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Ends every live session of a user, except the one given (the caller's own, when kept). */
  async revokeAllOfUser(userId: number, now: string, except?: string): Promise<void> {
    let query = this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (except) query = query.where('id', '!=', except);
    await query.execute();
  }

  /** Forgets sessions that ended (expired or were revoked) before `cutoff`; answers how many. */
  async purgeEndedBefore(cutoff: string): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
