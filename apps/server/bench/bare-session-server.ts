// The bare limit of the session check (issue 17 item 1): a minimal Fastify program doing what
// `GET /ui/user/login` does with the same driver — verify the same HS256 token with the key the
// server keeps in its database, run the same joined session/user query prepared once, answer the
// same JSON — and nothing else (no hooks, no schema, no logging).
// Environment: PORT, and DATABASE_URL (postgres://…) or DATA_DIR (the server's SQLite file).
import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

const sessionQuery = (p: (n: number) => string) => `
  select s.escalated, u.username, u.first_name, u.last_name, u.email, u.company, u.role, u.time_zone,
         u.language, u.use_sso, u.created_at
  from sessions s inner join users u on u.id = s.user_id
  where s.id = ${p(1)} and s.user_id = ${p(2)} and s.revoked_at is null and s.expires_at > ${p(3)}`;

interface Row {
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

let findLive: (sessionId: string, userId: number, now: string) => Promise<Row | undefined>;
let signingKey: Buffer;
const url = process.env.DATABASE_URL;
if (url?.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const { rows } = await pool.query<{ value: string }>(`select value from settings where key = 'session.signingKey'`);
  signingKey = Buffer.from(rows[0]!.value, 'base64');
  const text = sessionQuery((n) => `$${n}`);
  findLive = async (sessionId, userId, now) =>
    (await pool.query<Row>({ name: 'bare-session', text, values: [sessionId, userId, now] })).rows[0];
} else {
  const db = new SQLite(path.join(process.env.DATA_DIR!, 'manifold.db'));
  db.pragma('busy_timeout = 5000');
  const key = db.prepare(`select value from settings where key = 'session.signingKey'`).get() as { value: string };
  signingKey = Buffer.from(key.value, 'base64');
  const statement = db.prepare(sessionQuery(() => '?'));
  findLive = async (sessionId, userId, now) => statement.get(sessionId, userId, now) as Row | undefined;
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

const app = Fastify({ logger: false });
app.get('/ui/user/login', async (request, reply) => {
  const claims = verify((request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
  const row = claims && (await findLive(claims.sessionId, claims.userId, new Date().toISOString()));
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
    escalated: Number(row.escalated) === 1,
  };
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
