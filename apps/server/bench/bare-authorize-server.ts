// The bare limit of authorize (issue 17 item 3): a minimal Fastify program doing the database
// work of `POST /ui/authorization/authorize` for the benchmark's order with the same drivers — the
// session check (bare-session.ts), the order and the machine read, then ONE transaction per
// request: the same conditional UPDATE taking quantity and serial numbers, the authorization row,
// its two references and its audit row — and nothing else (no rules, no hooks, no schema, no
// batching of requests). Environment: PORT, DATABASE_URL (postgres://… or sqlite:FILE).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { queryNamed } from '../src/db/pg-named-statements.js';
import { openBareSession } from './bare-session.js';

interface OrderRow {
  id: string;
  dsi_id: string;
  company_name: string;
  user_id: string;
  archived: number;
  expires_at: string | null;
}

/** Statement texts with `p(n)` the n-th placeholder. */
const statements = (p: (n: number) => string) => ({
  order: `select * from orders where id = ${p(1)}`,
  device: `select * from devices where id = ${p(1)}`,
  take: `update orders set allocated = allocated + ${p(1)}, serial_next = serial_next + ${p(1)}, version = version + 1,
           updated_at = ${p(2)}
         where id = ${p(3)} and revoked = 0 and allocated + expired_quantity + ${p(1)} <= quantity
           and serial_next + ${p(1)} - 1 <= serial_end and (expires_at is null or expires_at > ${p(2)})
         returning serial_next`,
  authorization: `insert into authorizations (id, order_id, version, target_kind, device_id, manage_id, quantity, state,
           expires_at, serial_first, serial_last, authorized_users, tracking, device_parameters, quality_parameters,
           dsi_id, company_name, user_id, archived, downstream_device_id, created_by, created_at, sent_at, received_at,
           revoked_at, updated_at)
         values (${Array.from({ length: 26 }, (_, i) => p(i + 1)).join(', ')})`,
  references: `insert into entity_references (target_kind, target_id, referrer_kind, referrer_id, expires_at,
           released_at, created_at)
         values (${[1, 2, 3, 4, 5, 6, 7].map(p).join(', ')}), (${[8, 9, 10, 11, 12, 13, 14].map(p).join(', ')})`,
  audit: `insert into audit_events (event_type, actor, subject, details, source_ip, created_at)
         values (${[1, 2, 3, 4, 5, 6].map(p).join(', ')})`,
});
type Name = keyof ReturnType<typeof statements>;

/** Runs statements by name; `transaction` runs its work in one transaction. */
interface Runner {
  get<T>(name: Name, values: unknown[]): Promise<T | undefined>;
  run(name: Name, values: unknown[]): Promise<void>;
  transaction<T>(work: (runner: Runner) => Promise<T>): Promise<T>;
}

const session = await openBareSession();
let runner: Runner;
if (session.database.kind === 'postgres') {
  const { pool } = session.database;
  const text = statements((n) => `$${n}`);
  // the server's way of running a named statement (pg would copy a query object)
  const named = (client: pg.PoolClient, name: Name, values: unknown[]) =>
    queryNamed((query) => client.query(query), pg.Query, `bare-${name}`, text[name], values);
  // outside a transaction: a client of the pool for the one statement
  const pooled = async <T>(work: (client: pg.PoolClient) => Promise<T>) => {
    const client = await pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  };
  const get = async <T>(client: pg.PoolClient, name: Name, values: unknown[]) =>
    (await named(client, name, values)).rows[0] as T | undefined;
  const run = async (client: pg.PoolClient, name: Name, values: unknown[]) => void (await named(client, name, values));
  const on = (client: pg.PoolClient): Omit<Runner, 'transaction'> => ({
    get: (name, values) => get(client, name, values),
    run: (name, values) => run(client, name, values),
  });
  runner = {
    get: (name, values) => pooled((client) => get(client, name, values)),
    run: (name, values) => pooled((client) => run(client, name, values)),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work({ ...on(client), transaction: () => Promise.reject(new Error('nested')) });
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    },
  };
} else {
  const { db } = session.database;
  const text = statements((n) => `@p${n}`);
  const prepared = Object.fromEntries(Object.entries(text).map(([name, sql]) => [name, db.prepare(sql)])) as Record<
    Name,
    ReturnType<typeof db.prepare>
  >;
  // named parameters: a statement uses some values twice
  const named = (values: unknown[]) => Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value ?? null]));
  // one transaction at a time on the one connection, as the server's driver has it
  let tail: Promise<unknown> = Promise.resolve();
  runner = {
    get: async <T>(name: Name, values: unknown[]) => prepared[name].get(named(values)) as T | undefined,
    run: async (name: Name, values: unknown[]) => void prepared[name].run(named(values)),
    transaction(work) {
      const result = tail.then(async () => {
        db.exec('begin immediate');
        try {
          const value = await work(runner);
          db.exec('commit');
          return value;
        } catch (error) {
          db.exec('rollback');
          throw error;
        }
      });
      tail = result.catch(() => undefined);
      return result;
    },
  };
}

const app = Fastify({ logger: false });
app.post('/ui/authorization/authorize', async (request, reply) => {
  const caller = await session.authenticate(request.headers.authorization);
  if (!caller) return reply.status(401).send({ errorToken: 'invalidSessionToken' });
  const { orderId, deviceId, quantity } = request.body as { orderId: string; deviceId: string; quantity: number };
  const order = await runner.get<OrderRow>('order', [orderId]);
  const device = await runner.get<{ id: string }>('device', [deviceId]);
  if (!order || !device) return reply.status(420).send({ errorToken: order ? 'deviceIdNotValid' : 'orderIdNotValid' });
  const now = new Date().toISOString();
  const authorizationId = randomUUID();
  const granted = await runner.transaction(async (trx) => {
    const taken = await trx.get<{ serial_next: number | string }>('take', [quantity, now, orderId]);
    if (!taken) return false;
    const first = Number(taken.serial_next) - quantity;
    await trx.run('authorization', [
      authorizationId, orderId, 1, 'device', device.id, null, quantity, 'authorized', order.expires_at, first,
      first + quantity - 1, '[]', '[]', '[]', '[]', order.dsi_id, order.company_name, order.user_id, order.archived, null,
      caller.username, now, null, null, null, now,
    ]); // prettier-ignore
    await trx.run('references', [
      'device', device.id, 'authorization', authorizationId, order.expires_at, null, now,
      'package', order.dsi_id, 'authorization', authorizationId, order.expires_at, null, now,
    ]); // prettier-ignore
    await trx.run('audit', [
      'licenceAuthorized', caller.username, orderId,
      JSON.stringify({ authorizationId, quantity, target: { deviceId: device.id }, serialFirst: first, expiration: order.expires_at }),
      request.ip, now,
    ]); // prettier-ignore
    return true;
  });
  if (!granted) return reply.status(420).send({ errorToken: 'orderHasNoMoreQuantity' });
  return { authorizationId };
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
