import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TOrderDetail } from '@manifold/contract';
import { addOrder, expectExactBooks, licensingWorld, type LicensingWorld, policyFor } from './helpers/licensing-fixtures.js';
import { startServer, type ServerProcess } from './helpers/server-process.js';
import { describeEachDatabase, serverProcessEnv } from './helpers/test-app.js';

/**
 * Two more server processes on the same database (and data directory) as the test's own app:
 * the quantity of an order is taken by one conditional UPDATE, so requests spread over every
 * instance (each taking the requests that reach it together) still hand out exactly the order's
 * quantity and one run of serial numbers.
 */
describeEachDatabase('authorize across server processes', (ctx) => {
  const servers: ServerProcess[] = [];
  let world: LicensingWorld;

  beforeAll(async () => {
    world = await licensingWorld(ctx());
    const { config } = ctx();
    const env = serverProcessEnv(config);
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  /** Authorize requests of `sizes` sent at once, alternately to the two processes; answers their statuses and tokens. */
  async function authorizeSpread(orderId: string, sizes: number[]) {
    const token = await ctx().adminToken();
    return Promise.all(
      sizes.map((quantity, i) =>
        fetch(`${servers[i % 2]!.url}/ui/authorization/authorize`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ orderId, deviceId: world.deviceId, quantity }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { errorToken?: string } })),
      ),
    );
  }

  async function fetchOrder(orderId: string): Promise<TOrderDetail> {
    const token = await ctx().adminToken();
    return (await ctx().call('GET', `/ui/order/fetch?orderId=${orderId}&numberOfItems=100`, { token })).json<TOrderDetail>();
  }

  it('gives exactly 10 of 50 simultaneous requests, spread over two server processes, on an order of 10', async () => {
    const orderId = await addOrder(ctx(), policyFor(world, { quantity: 10, serialization: { type: 'Dec', start: 1, end: 100 } }));
    const responses = await authorizeSpread(
      orderId,
      Array.from({ length: 50 }, () => 1),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 420)).toHaveLength(40);
    for (const refused of responses.filter((r) => r.status === 420)) {
      expect(['orderHasNoMoreQuantity', 'quantityExceedsAllottedAmount']).toContain(refused.body.errorToken);
    }
    const order = await fetchOrder(orderId);
    expect(order).toMatchObject({ allocatedQuantity: 10, remainingQuantity: 0 });
    expectExactBooks(order, { quantity: 10, firstSerial: 1, sizes: statuses.map(() => 1), statuses });
  });

  it('serves simultaneous requests of different sizes, spread over two processes, exactly as far as the order goes', async () => {
    const orderId = await addOrder(
      ctx(),
      policyFor(world, { quantity: 40, serialization: { type: 'Dec', start: 501, end: 5000 } }),
    );
    const sizes = [3, 5, 2, 7, 4, 1, 6, 2, 3, 5, 8, 1, 4, 2, 6, 3, 5, 1, 2, 7];
    const responses = await authorizeSpread(orderId, sizes);
    const statuses = responses.map((r) => r.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(420);
    expectExactBooks(await fetchOrder(orderId), { quantity: 40, firstSerial: 501, sizes, statuses });
  });
});
