// Seeding for the benchmarks over inspected parts (quality search, home dashboard).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import type { PartsTable } from '../src/db/schema-trace.js';
import { analyzeTables, seededOrderRow, type Target } from './bench-support.js';

const DAY_MS = 86_400_000;
const reasons = ['warped', 'porosity', 'dimension', 'surface', 'delamination', 'support marks'];

export interface World {
  devices: string[];
  dsiIds: string[];
  orders: { id: string; dsiId: string; company: string }[];
}

/**
 * `count` inspected parts over 365 days from `start` (builds of 1,000 parts, 20 machines, 20
 * designs, 50 orders of 10 supplier companies, one in 13 failed with one of 6 reasons): the orders,
 * then builds and parts in batched multi-row inserts; answers the seconds it took.
 */
export async function seedInspectedParts(t: Target, count: number, start: number): Promise<{ seconds: number; world: World }> {
  const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
  await database.migrate();
  const started = performance.now();
  try {
    const dsiIds = Array.from({ length: 20 }, () => randomUUID());
    const devices = Array.from({ length: 20 }, () => randomUUID());
    const orderRows = Array.from({ length: 50 }, (_, i) => seededOrderRow(i, dsiIds, start, { companies: 10, users: 5 }));
    await database.db.insertInto('orders').values(orderRows).execute();
    const world: World = {
      devices,
      dsiIds,
      orders: orderRows.map((row) => ({ id: row.id, dsiId: row.dsi_id, company: row.company_name })),
    };
    const perBuild = 1000;
    const part = (i: number, buildId: string, order: World['orders'][number], device: string) => {
      const failed = i % 13 === 0;
      const inspected = new Date(start + (i % 365) * DAY_MS + (i % 86_000) * 1000).toISOString();
      const row: PartsTable = {
        id: randomUUID(),
        build_id: buildId,
        device_id: device,
        authorization_id: order.id,
        order_id: order.id,
        dsi_id: order.dsiId,
        serial_number: `B-${i}`,
        qms_state: failed ? 'FAILURE' : 'MANUFACTURED',
        counted: 0,
        event_id: buildId,
        revoked: 0,
        created_at: inspected,
        inspection_id: null,
        inspection_result: failed ? 'failed' : 'passed',
        inspected_at: inspected,
        technician: `tech${i % 20}`,
        failure_reason: failed ? reasons[i % reasons.length]! : null,
      };
      return row;
    };
    const batch = t.kind === 'sqlite' ? 1_500 : 3_000;
    for (let done = 0; done < count; done += perBuild * 20) {
      await database.transaction(async (trx) => {
        for (let b = done; b < Math.min(count, done + perBuild * 20); b += perBuild) {
          const buildNumber = b / perBuild;
          const order = world.orders[buildNumber % world.orders.length]!;
          const device = devices[buildNumber % devices.length]!;
          const buildId = randomUUID();
          const at = new Date(start + (buildNumber % 365) * DAY_MS).toISOString();
          await trx
            .insertInto('builds')
            .values({
              id: buildId,
              device_id: device,
              authorization_id: order.id,
              order_id: order.id,
              dsi_id: order.dsiId,
              job_id: `job-${buildNumber}`,
              state: 'ended',
              quantity: perBuild,
              started_at: at,
              finished_at: at,
              created_at: at,
              updated_at: at,
            })
            .execute();
          const end = Math.min(count, b + perBuild);
          for (let s = b; s < end; s += batch) {
            const rows = Array.from({ length: Math.min(batch, end - s) }, (_, k) => part(s + k, buildId, order, device));
            await trx.insertInto('parts').values(rows).execute();
          }
        }
      });
    }
    await analyzeTables(database, ['orders', 'builds', 'parts']);
    return { seconds: (performance.now() - started) / 1000, world };
  } finally {
    await database.close();
  }
}

/** p99 and mean of `work` run `connections` at a time for `duration` seconds. */
export async function measureBare(
  title: string,
  { duration, connections }: { duration: number; connections: number },
  work: () => Promise<void>,
) {
  const latencies: number[] = [];
  const until = performance.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        await work();
        latencies.push(performance.now() - began);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  const mean = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  return {
    title,
    'requests/s': Math.round(latencies.length / duration),
    'p99 ms': Math.round(p99),
    'mean ms': Number(mean.toFixed(2)),
  };
}

/**
 * The options of a benchmark over seeded inspected parts:
 * `--databases sqlite,postgres --duration 5 --connections 4 --parts <defaultParts>`.
 */
export function seededBenchOptions(defaultParts: number) {
  const { values } = parseArgs({
    options: {
      databases: { type: 'string', default: 'sqlite,postgres' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '4' },
      parts: { type: 'string', default: String(defaultParts) },
    },
  });
  return {
    databases: values.databases,
    duration: Number(values.duration),
    connections: Number(values.connections),
    partCount: Number(values.parts),
  };
}
