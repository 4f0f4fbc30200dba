import type { Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { DB, NewSessionRow, SessionRow, UserRow } from '../../db/schema.js';

/** Every authenticated request runs this: compiled once (`precompiled`), not built per call. */
const findLiveQuery = precompiled((db: Kysely<DB>, args: { sessionId: string; userId: number; now: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as s_id',
      'sessions.user_id as s_user_id',
      'sessions.created_at as s_created_at',
      'sessions.expires_at as s_expires_at',
      'sessions.revoked_at as s_revoked_at',
      'sessions.escalated as s_escalated',
      'sessions.escalated_until as s_escalated_until',
      'sessions.source_ip as s_source_ip',
      'sessions.user_agent as s_user_agent',
    ])
    .selectAll('users')
    .where('sessions.id', '=', args.sessionId)
    .where('sessions.user_id', '=', args.userId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', args.now),
);

export class SessionsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async create(session: NewSessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(session).execute();
  }

  /** The live session and its user, in one query: unrevoked, unexpired, user still present. */
  async findLive(sessionId: string, userId: number, now: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    const [row] = await findLiveQuery(this.db, { sessionId, userId, now });
    if (!row) return undefined;
    const {
      s_id,
      s_user_id,
      s_created_at,
      s_expires_at,
      s_revoked_at,
      s_escalated,
      s_escalated_until,
      s_source_ip,
      s_user_agent,
      ...user
    } = row;
    return {
      session: {
        id: s_id,
        user_id: s_user_id,
        created_at: s_created_at,
        expires_at: s_expires_at,
        revoked_at: s_revoked_at,
        escalated: s_escalated,
        escalated_until: s_escalated_until,
        source_ip: s_source_ip,
        user_agent: s_user_agent,
      },
      user,
    };
  }

  async revoke(sessionId: string, now: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .execute();
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
