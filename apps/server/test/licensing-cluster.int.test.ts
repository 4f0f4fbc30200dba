import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { TOrderDetail } from '@manifold/contract';
import { addOrder, licensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { startServer, type ServerProcess } from './helpers/server-process.js';
import { adminPassword, describeEachDatabase } from './helpers/test-app.js';

/**
 * Two more server processes on the same database (and data directory) as the test's own app:
 * the quantity of an order is taken by one conditional UPDATE, so requests spread over every
 * instance still hand out exactly the order's quantity.
 */
describeEachDatabase('authorize across server processes', (ctx) => {
  const servers: ServerProcess[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('gives exactly 10 of 50 simultaneous requests, spread over two server processes, on an order of 10', async () => {
    const world = await licensingWorld(ctx());
    const orderId = await addOrder(ctx(), policyFor(world, { quantity: 10, serialization: { type: 'Dec', start: 1, end: 100 } }));
    const { config } = ctx();
    const databaseUrl = config.database.kind === 'sqlite' ? `sqlite:${config.database.file}` : config.database.url;
    const env = {
      DATA_DIR: config.dataDir,
      DATABASE_URL: databaseUrl,
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'silent',
      CONSOLE_DIR: path.join(config.dataDir, 'no-console'),
    };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const token = await ctx().adminToken();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${servers[i % 2]!.url}/ui/authorization/authorize`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ orderId, deviceId: world.deviceId, quantity: 1 }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { errorToken?: string } })),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 420)).toHaveLength(40);
    for (const refused of responses.filter((r) => r.status === 420)) {
      expect(['orderHasNoMoreQuantity', 'quantityExceedsAllottedAmount']).toContain(refused.body.errorToken);
    }
    const order = (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}`, { token })).json<TOrderDetail>();
    expect(order).toMatchObject({ allocatedQuantity: 10, remainingQuantity: 0 });
    expect(new Set(order.authorizations.data.map((a) => a.serialNumbers!.first)).size).toBe(10);
  });
});
