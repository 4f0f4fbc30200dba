// The bare limit of the session check (issue 17 item 1): a minimal Fastify program doing what
// `GET /ui/user/login` does with the same driver — verify the token with the server's own
// `SessionTokens` (the same checks, the key the server keeps in its database), run the same
// joined session/user query (the same columns) prepared once, answer the same JSON (escalated
// only within its time) — and nothing else (no hooks, no schema, no logging).
// Environment: PORT, and DATABASE_URL (postgres://…) or DATA_DIR (the server's SQLite file).
import Fastify from 'fastify';
import { openBareSession } from './bare-session.js';

const session = await openBareSession();
const app = Fastify({ logger: false });
app.get('/ui/user/login', async (request, reply) => {
  const row = await session.authenticate(request.headers.authorization);
  const now = new Date().toISOString();
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
