// The session check of the bare-limit programs (bare-session-server.ts, bare-authorize-server.ts):
// the same HS256 token verified with the key the server keeps in its database, and the same
// joined session/user query prepared once, with the server's drivers and nothing else.
// Environment: DATABASE_URL (postgres://… or sqlite:FILE), else DATA_DIR (the server's SQLite file).
import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

const sessionQuery = (p: (n: number) => string) => `
  select s.escalated, u.username, u.first_name, u.last_name, u.email, u.company, u.role, u.time_zone,
         u.language, u.use_sso, u.created_at
  from sessions s inner join users u on u.id = s.user_id
  where s.id = ${p(1)} and s.user_id = ${p(2)} and s.revoked_at is null and s.expires_at > ${p(3)}`;

export interface SessionRow {
  escalated: number;
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
  let signingKey: Buffer;
  let database: BareDatabase;
  if (url?.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const { rows } = await pool.query<{ value: string }>(`select value from settings where key = 'session.signingKey'`);
    signingKey = Buffer.from(rows[0]!.value, 'base64');
    const text = sessionQuery((n) => `$${n}`);
    findLive = async (sessionId, userId, now) =>
      (await pool.query<SessionRow>({ name: 'bare-session', text, values: [sessionId, userId, now] })).rows[0];
    database = { kind: 'postgres', pool };
  } else {
    const db = new SQLite(
      url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : path.join(process.env.DATA_DIR!, 'manifold.db'),
    );
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = FULL');
    const key = db.prepare(`select value from settings where key = 'session.signingKey'`).get() as { value: string };
    signingKey = Buffer.from(key.value, 'base64');
    const statement = db.prepare(sessionQuery(() => '?'));
    findLive = async (sessionId, userId, now) => statement.get(sessionId, userId, now) as SessionRow | undefined;
    database = { kind: 'sqlite', db };
  }

  function verify(token: string): { sessionId: string; userId: number } | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string };
    if (header.alg !== 'HS256') return undefined;
    const expected = Buffer.from(createHmac('sha256', signingKey).update(`${parts[0]}.${parts[1]}`).digest('base64url'));
    const given = Buffer.from(parts[2]!);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { sid: string; sub: string; exp: number };
    if (payload.exp <= Date.now() / 1000) return undefined;
    return { sessionId: payload.sid, userId: Number(payload.sub) };
  }

  return {
    database,
    async authenticate(authorization) {
      const claims = verify((authorization ?? '').replace(/^Bearer\s+/i, ''));
      return claims && (await findLive(claims.sessionId, claims.userId, new Date().toISOString()));
    },
  };
}
