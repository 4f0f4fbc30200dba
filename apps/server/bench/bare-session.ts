// The session check of the bare-limit programs (bare-session-server.ts, bare-authorize-server.ts):
// the token verified with the server's own `SessionTokens` (the same checks, the key the server
// keeps in its database), and the same joined session/user query (the same columns) prepared
// once, with the server's drivers and nothing else.
// Environment: DATABASE_URL (postgres://… or sqlite:FILE), else DATA_DIR (the server's SQLite file).
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { queryNamed } from '../src/db/pg-named-statements.js';
import { SessionTokens } from '../src/modules/session/session-tokens.js';

const sessionQuery = (p: (n: number) => string) => `
  select s.escalated, s.escalated_until, u.id, u.username, u.first_name, u.last_name, u.email, u.company, u.role, u.time_zone,
         u.language, u.use_sso, u.created_at
  from sessions s inner join users u on u.id = s.user_id
  where s.id = ${p(1)} and s.user_id = ${p(2)} and s.revoked_at is null and s.expires_at > ${p(3)}`;

export interface SessionRow {
  escalated: number;
  escalated_until: string | null;
  id: number;
  username: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
  role: string;
  time_zone: string | null;
  language: string | null;
  use_sso: number;
  created_at: string;
}

/** The database of a bare program: a `pg` pool or one better-sqlite3 connection. */
export type BareDatabase = { kind: 'postgres'; pool: pg.Pool } | { kind: 'sqlite'; db: SQLite.Database };

export interface BareSession {
  database: BareDatabase;
  /** The live session's row for an `authorization` header, or undefined (answer 401). */
  authenticate(authorization: string | undefined): Promise<SessionRow | undefined>;
}

export async function openBareSession(): Promise<BareSession> {
  const url = process.env.DATABASE_URL;
  let findLive: (sessionId: string, userId: number, now: string) => Promise<SessionRow | undefined>;
  let signingKey: string;
  let database: BareDatabase;
  if (url?.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const { rows } = await pool.query<{ value: string }>(`select value from settings where key = 'session.signingKey'`);
    signingKey = rows[0]!.value;
    const text = sessionQuery((n) => `$${n}`);
    // the server's way of running a named statement (pg would copy a query object)
    findLive = async (sessionId, userId, now) => {
      const client = await pool.connect();
      try {
        const submit = (query: pg.Query) => client.query(query);
        return (await queryNamed<SessionRow>(submit, pg.Query, 'bare-session', text, [sessionId, userId, now])).rows[0];
      } finally {
        client.release();
      }
    };
    database = { kind: 'postgres', pool };
  } else {
    const db = new SQLite(
      url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : path.join(process.env.DATA_DIR!, 'manifold.db'),
    );
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = FULL');
    const key = db.prepare(`select value from settings where key = 'session.signingKey'`).get() as { value: string };
    signingKey = key.value;
    const statement = db.prepare(sessionQuery(() => '?'));
    findLive = async (sessionId, userId, now) => statement.get(sessionId, userId, now) as SessionRow | undefined;
    database = { kind: 'sqlite', db };
  }

  const tokens = await SessionTokens.load({ insertIfAbsent: async () => signingKey });

  return {
    database,
    async authenticate(authorization) {
      const claims = await tokens.verify(/^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '');
      return claims && (await findLive(claims.sessionId, claims.userId, new Date().toISOString()));
    },
  };
}
