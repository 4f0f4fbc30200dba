// Outbox delivery between two local instances (docs/peer-network.md#the-outbox):
//
//   npm run bench:outbox [-- --databases sqlite,postgres --messages 1000 --concurrency 8]
//
// Two server processes on one database kind register with each other (upstream → downstream,
// approved). The upstream authorizes `messages` authorizations of quantity 1 to the downstream
// and sends them (one outbox message each, queued in the send's transaction); the clock runs from
// the first send until the last message is acknowledged. Figures: messages/s, and p50/p99 of the
// delay from the message's commit (`createdAt`) to the remote acknowledgement (`deliveredAt`).
//
// Bare limit: one minimal program doing the same work with the same drivers — a row inserted per
// message (waking the sender in-process), leased in batches (`UPDATE … RETURNING` on SQLite,
// `FOR UPDATE SKIP LOCKED` on PostgreSQL), each signed (the same detached JWS with `x5t#S256` over
// the same `{registrationNonce, messageId, kind, timestamp, nonce, body}` envelope) and posted,
// `concurrency` at a time over kept-alive connections, to a receiver process of its own
// (bench/outbox-bare-receiver.ts) that verifies the signature and records the nonce and the
// message id in one transaction, then marked delivered in one UPDATE per round — with nothing else
// (no registration lookups, no envelope checks, no order made downstream, no HTTP framework).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { TDsiEntry, TManageInstance, TOutboxMessage, TPage } from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import { signDetachedJws } from '../src/crypto/jws.js';
import { importPrivateKey } from '../src/crypto/key-pairs.js';
import { canonicalJson } from '../src/lib/canonical-json.js';
import { createScratchDatabase } from '../test/helpers/database-servers.js';
import { policyFor, type LicensingWorld } from '../test/helpers/licensing-fixtures.js';
import { multipartForm } from '../test/helpers/multipart.js';
import { joinNetwork, startPeer, type PeerProcess } from '../test/helpers/peer-network.js';
import { startServer } from '../test/helpers/server-process.js';
import { peerIdentity, testRoot } from '../test/helpers/test-pki.js';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres' },
    messages: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '8' },
  },
});
const messages = Number(values.messages);
const concurrency = Number(values.concurrency);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface Figures {
  'messages/s': number;
  'p50 ms': number;
  'p99 ms': number;
}

function figures(delays: number[], elapsedMs: number): Figures {
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    'messages/s': Math.round((delays.length / elapsedMs) * 1000),
    'p50 ms': Math.round(percentile(sorted, 50)),
    'p99 ms': Math.round(percentile(sorted, 99)),
  };
}

async function databaseUrl(kind: string, dir: string, cleanups: (() => Promise<void>)[]): Promise<string> {
  if (kind === 'sqlite') return `sqlite:${path.join(dir, 'bench.db')}`;
  if (kind !== 'postgres') throw new Error(`--databases: ${kind} is not sqlite or postgres`);
  const scratch = await createScratchDatabase('postgres');
  cleanups.push(scratch.drop);
  return scratch.url;
}

async function ok(peer: PeerProcess, method: 'GET' | 'POST', url: string, body?: unknown, headers?: Record<string, string>) {
  const answer = await peer.call(method, url, body === undefined ? {} : { body, ...(headers ? { headers } : {}) });
  if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode} ${answer.body}`);
  return answer.json() as Record<string, unknown>;
}

async function runManifold(kind: string): Promise<Figures> {
  const cleanups: (() => Promise<void>)[] = [];
  const peers: PeerProcess[] = [];
  try {
    const env = async (name: string) => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), `manifold-outbox-bench-${name}-`));
      cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
      return {
        DATA_DIR: dir,
        DATABASE_URL: await databaseUrl(kind, dir, cleanups),
        // the default poll: a message committed here is delivered because the commit wakes the worker
        OUTBOX_CONCURRENCY: String(concurrency),
        OUTBOX_PEER_CONCURRENCY: String(concurrency),
        LOG_LEVEL: 'error',
      };
    };
    const upstream = await startPeer('Bench Upstream', await env('up'));
    peers.push(upstream);
    const downstream = await startPeer('Bench Downstream', await env('down'));
    peers.push(downstream);
    const root = await testRoot('Outbox Bench Root');
    const [signing] = await Promise.all([joinNetwork(upstream.call, root), joinNetwork(downstream.call, root)]);
    const { manageId, registrationNonce } = (await ok(upstream, 'POST', '/ui/manage/add', {
      manageUrl: downstream.url,
    })) as unknown as TManageInstance;
    const theirs = (
      (await ok(downstream, 'GET', '/ui/manage/list?registrationType=upStreamManage')) as unknown as TPage<TManageInstance>
    ).data.find((entry) => entry.registrationNonce === registrationNonce)!;
    await ok(downstream, 'POST', '/ui/manage/approve', { id: theirs.manageId, approve: true });

    const { dsiId } = (await ok(upstream, 'POST', '/ui/package/info', { designName: 'Bench Part', companyName: 'Acme' })) as {
      dsiId: string;
    };
    const file = multipartForm({ dsiId, isPublic: 'false', file: { filename: 'part.3mf', content: Buffer.alloc(1024, 1) } });
    await ok(upstream, 'POST', '/ui/package/files/upload', file.body, file.headers);
    const revision = (await ok(upstream, 'POST', '/ui/package/build', { dsiId })) as unknown as TDsiEntry;
    const world = { revision, licenseeSerial: describeCertificate(signing).serialNumber } as LicensingWorld;
    const { orderId } = (await ok(upstream, 'POST', '/ui/order/add', {
      authorizationAuthorizedPolicyList: policyFor(world, { quantity: 1_000_000 }),
    })) as { orderId: string };

    // authorizations made first (not timed); each send is one committed outbox message
    const ids: string[] = [];
    for (let i = 0; i < messages; i += 1) {
      ids.push(
        (
          (await ok(upstream, 'POST', '/ui/authorization/authorize', { orderId, manageId, quantity: 1 })) as {
            authorizationId: string;
          }
        ).authorizationId,
      );
    }
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < ids.length) {
          const authorizationId = ids[next++]!;
          await ok(upstream, 'POST', '/ui/authorization/send', { orderId, authorizationId });
        }
      }),
    );
    const rows: TOutboxMessage[] = [];
    for (;;) {
      rows.length = 0;
      for (let page = 1; ; page += 1) {
        const answer = (await ok(
          upstream,
          'GET',
          `/ui/admin/outbox?numberOfItems=100&pageNum=${page}`,
        )) as unknown as TPage<TOutboxMessage>;
        rows.push(...answer.data);
        if (page >= answer.totalNumOfPages) break;
      }
      if (rows.length >= messages && rows.every((row) => row.state === 'delivered')) break;
      if (rows.some((row) => row.state === 'failed')) throw new Error('a message failed');
      if (Date.now() - started > 600_000) throw new Error('not delivered within ten minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const lastAck = Math.max(...rows.map((row) => Date.parse(row.deliveredAt!)));
    const delays = rows.map((row) => Date.parse(row.deliveredAt!) - Date.parse(row.createdAt));
    return figures(delays, lastAck - started);
  } finally {
    for (const peer of peers) await peer.stop().catch(() => undefined);
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

/** The bare sender's table, with the same driver: insert, lease a batch, mark a batch delivered. */
interface Store {
  insert(id: string, at: number): Promise<void>;
  claim(n: number): Promise<{ id: string; at: number }[]>;
  delivered(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

async function store(kind: string, dir: string, cleanups: (() => Promise<void>)[]): Promise<Store> {
  const table = 'create table messages (id text primary key, at bigint not null, state text not null)';
  if (kind === 'sqlite') {
    const db = new SQLite(path.join(dir, 'sender.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(table);
    const insert = db.prepare("insert into messages values (?, ?, 'pending')");
    const claim = db.prepare(
      "update messages set state = 'running' where id in (select id from messages where state = 'pending' order by at limit ?) returning id, at",
    );
    return {
      insert: async (id, at) => void insert.run(id, at),
      claim: async (n) => claim.all(n) as { id: string; at: number }[],
      delivered: async (ids) =>
        void db.prepare(`update messages set state = 'delivered' where id in (${ids.map(() => '?').join(',')})`).run(...ids),
      close: async () => void db.close(),
    };
  }
  const scratch = await createScratchDatabase('postgres');
  cleanups.push(scratch.drop);
  const pool = new pg.Pool({ connectionString: scratch.url, max: 10 });
  await pool.query(table);
  return {
    insert: async (id, at) => void (await pool.query("insert into messages values ($1, $2, 'pending')", [id, at])),
    claim: async (n) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const picked = await client.query<{ id: string; at: string }>(
          "select id, at from messages where state = 'pending' order by at limit $1 for update skip locked",
          [n],
        );
        if (picked.rows.length > 0)
          await client.query("update messages set state = 'running' where id = any($1)", [picked.rows.map((row) => row.id)]);
        await client.query('commit');
        return picked.rows.map((row) => ({ id: row.id, at: Number(row.at) }));
      } finally {
        client.release();
      }
    },
    delivered: async (ids) => void (await pool.query("update messages set state = 'delivered' where id = any($1)", [ids])),
    close: () => pool.end(),
  };
}

/** The body of a delegated authorization, about the size Manifold's messages carry. */
const sampleBody = {
  authorizationId: randomUUID(),
  orderId: randomUUID(),
  orderNumber: 'BENCH-0001',
  companyName: 'Acme',
  sourceCompanyName: 'Acme',
  sourceDateCreated: new Date().toISOString(),
  design: { dsiId: randomUUID(), revisionId: randomUUID(), dsiVersion: 1, designName: 'Bench Part' },
  quantity: 1,
  expiration: null,
  policy: { constraints: Array.from({ length: 8 }, (_, i) => ({ name: `parameter-${i}`, min: 0, max: 100 })) },
};

async function runBare(kind: string): Promise<Figures> {
  const cleanups: (() => Promise<void>)[] = [];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-outbox-bare-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const sender = await store(kind, dir, cleanups);
  const root = await testRoot('Outbox Bare Root');
  const key = await peerIdentity(root, { purpose: 'signing' });
  const certificateFile = path.join(dir, 'sender.pem');
  await fs.writeFile(certificateFile, key.certificatePem);
  let receiverDatabase = `sqlite:${path.join(dir, 'receiver.db')}`;
  if (kind !== 'sqlite') {
    const scratch = await createScratchDatabase('postgres');
    cleanups.push(scratch.drop);
    receiverDatabase = scratch.url;
  }
  const receiver = await startServer(
    { BARE_DATABASE: receiverDatabase, BARE_CERTIFICATE: certificateFile },
    { file: fileURLToPath(new URL('./outbox-bare-receiver.ts', import.meta.url)) },
  );
  const agent = new http.Agent({ keepAlive: true });
  const privateKey = importPrivateKey(key.privateKeyPem);
  const target = new URL(receiver.url);
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: '/apl/peer/message',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  try {
    const delays: number[] = [];
    const started = Date.now();
    // the sender: woken when a message is committed, leases as many as it has free slots,
    // signs and posts each, and marks the acknowledged ones delivered together
    let inFlight = 0;
    let woken = false;
    let resume: () => void = () => undefined;
    const wake = () => {
      woken = true;
      resume();
    };
    const acknowledged: { id: string; at: number }[] = [];
    let flushing: Promise<void> | undefined;
    const flush = () => {
      if (flushing) return;
      flushing = (async () => {
        while (acknowledged.length > 0) {
          const batch = acknowledged.splice(0);
          await sender.delivered(batch.map((row) => row.id));
          const now = Date.now();
          for (const row of batch) delays.push(now - row.at);
        }
      })().finally(() => {
        flushing = undefined;
        if (acknowledged.length > 0) flush();
        wake();
      });
    };
    const deliver = async (row: { id: string; at: number }) => {
      const apl = {
        registrationNonce: randomUUID(),
        messageId: row.id,
        kind: 'authorization',
        timestamp: new Date().toISOString(),
        nonce: randomUUID(),
        body: sampleBody,
      };
      const signature = await signDetachedJws(canonicalJson(apl), privateKey, { certificatePem: key.certificatePem });
      await post(JSON.stringify({ aplType: 'upstreamManage', apl, signature }));
      acknowledged.push(row);
      flush();
    };
    const producer = (async () => {
      for (let inserted = 0; inserted < messages; inserted += 1) {
        await sender.insert(randomUUID(), Date.now());
        wake();
      }
    })();
    while (delays.length < messages) {
      woken = false;
      const rows = inFlight < concurrency ? await sender.claim(concurrency - inFlight) : [];
      for (const row of rows) {
        inFlight += 1;
        void deliver(row).finally(() => {
          inFlight -= 1;
          wake();
        });
      }
      if (rows.length === 0 && !woken) await new Promise<void>((resolve) => (resume = resolve));
    }
    await producer;
    return figures(delays, Date.now() - started);
  } finally {
    agent.destroy();
    await receiver.stop();
    await sender.close();
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

const results: Record<string, string | number>[] = [];
for (const kind of values.databases.split(',')) {
  const manifold = await runManifold(kind);
  const bare = await runBare(kind);
  results.push({ database: kind, run: 'Manifold outbox', ...manifold });
  results.push({ database: kind, run: 'bare limit', ...bare });
  results.push({
    database: kind,
    run: 'ratio (Manifold / bare)',
    'messages/s': Number((manifold['messages/s'] / bare['messages/s']).toFixed(2)),
  });
}
console.log(`outbox delivery: ${messages} messages, ${concurrency} deliveries at a time`);
console.table(results);
