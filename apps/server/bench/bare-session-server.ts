// The bare limit of the session check (issue 17 item 1): a minimal Fastify program doing what
// `GET /ui/user/login` does with the same driver — verify the token with the server's own
// `SessionTokens` (the same checks, the key the server keeps in its database), run the same
// joined session/user query (the same columns) prepared once, answer the same JSON (escalated
// only within its time) — and nothing else (no hooks, no schema, no logging).
// Environment: PORT, and DATABASE_URL (postgres://…) or DATA_DIR (the server's SQLite file).
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { SessionTokens } from '../src/modules/session/session-tokens.js';

const sessionQuery = (p: (n: number) => string) => `
  select s.escalated, s.escalated_until, u.id, u.username, u.first_name, u.last_name, u.email, u.company, u.role,
         u.time_zone, u.language, u.use_sso, u.created_at
  from sessions s inner join users u on u.id = s.user_id
  where s.id = ${p(1)} and s.user_id = ${p(2)} and s.revoked_at is null and s.expires_at > ${p(3)}`;
const keyQuery = `select value from settings where key = 'session.signingKey'`;

interface Row {
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

let findLive: (sessionId: string, userId: number, now: string) => Promise<Row | undefined>;
let signingKey: string;
const url = process.env.DATABASE_URL;
if (url?.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  signingKey = (await pool.query<{ value: string }>(keyQuery)).rows[0]!.value;
  const text = sessionQuery((n) => `$${n}`);
  findLive = async (sessionId, userId, now) =>
    (await pool.query<Row>({ name: 'bare-session', text, values: [sessionId, userId, now] })).rows[0];
} else {
  const db = new SQLite(path.join(process.env.DATA_DIR!, 'manifold.db'));
  db.pragma('busy_timeout = 5000');
  signingKey = (db.prepare(keyQuery).get() as { value: string }).value;
  const statement = db.prepare(sessionQuery(() => '?'));
  findLive = async (sessionId, userId, now) => statement.get(sessionId, userId, now) as Row | undefined;
}
const tokens = await SessionTokens.load({ insertIfAbsent: async () => signingKey });

const app = Fastify({ logger: false });
app.get('/ui/user/login', async (request, reply) => {
  const claims = await tokens.verify(/^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? '');
  const now = new Date().toISOString();
  const row = claims && (await findLive(claims.sessionId, claims.userId, now));
  if (!row) return reply.status(401).send({ errorToken: 'invalidSessionToken' });
  return {
    userProfile: {
      username: row.username,
      firstName: row.first_name,
      lastName: row.last_name,
      email: row.email,
      company: row.company,
      role: row.role,
      timeZone: row.time_zone,
      language: row.language,
      useSso: Number(row.use_sso) === 1,
      dateCreated: row.created_at,
    },
    escalated: Number(row.escalated) === 1 && row.escalated_until !== null && row.escalated_until > now,
  };
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
