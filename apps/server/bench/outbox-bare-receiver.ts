// The receiving end of the outbox benchmark's bare limit (bench/outbox-bench.ts), a process of its
// own like the Manifold receiver: verifies the detached JWS of each POSTed `{aplType, apl,
// signature}` with the sender's certificate and records its nonce and message id in one
// transaction with the same driver, then acknowledges. Environment: PORT, BARE_DATABASE
// (`sqlite:<file>` or a PostgreSQL URL), BARE_CERTIFICATE (PEM file of the sender's certificate).
import fs from 'node:fs';
import http from 'node:http';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { verifyDetachedJws } from '../src/crypto/jws.js';
import { canonicalJson } from '../src/lib/canonical-json.js';

const target = process.env.BARE_DATABASE!;
const certificatePem = fs.readFileSync(process.env.BARE_CERTIFICATE!, 'utf8');

type Record = (nonce: string, messageId: string, at: string) => Promise<void>;

async function store(): Promise<Record> {
  const tables = [
    'create table if not exists nonces (nonce text primary key, created_at text not null)',
    'create table if not exists messages (message_id text primary key, received_at text not null)',
  ];
  if (target.startsWith('sqlite:')) {
    const db = new SQLite(target.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    for (const statement of tables) db.exec(statement);
    const nonce = db.prepare('insert into nonces values (?, ?)');
    const message = db.prepare('insert into messages values (?, ?)');
    const both = db.transaction((n: string, m: string, at: string) => {
      nonce.run(n, at);
      message.run(m, at);
    });
    return async (n, m, at) => void both(n, m, at);
  }
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  for (const statement of tables) await pool.query(statement);
  return async (n, m, at) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('insert into nonces values ($1, $2)', [n, at]);
      await client.query('insert into messages values ($1, $2)', [m, at]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
}

const record = await store();
const server = http.createServer((request, response) => {
  if (request.url === '/healthz') return void response.end('ok');
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    void (async () => {
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          apl: { messageId: string; nonce: string };
          signature: string;
        };
        await verifyDetachedJws(message.signature, canonicalJson(message.apl), certificatePem);
        await record(message.apl.nonce, message.apl.messageId, new Date().toISOString());
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ messageId: message.apl.messageId, received: 'applied' }));
      } catch (error) {
        response.statusCode = 500;
        response.end(String(error));
      }
    })();
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT), '127.0.0.1');
