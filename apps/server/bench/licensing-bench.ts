// Licence engine benchmarks on a started server (HTTP, autocannon):
//
//   npm run bench:authorize [-- --databases sqlite,postgres --duration 10 --connections 10 --rounds 2 --profile DIR]
//     authorize throughput and p99: POST /ui/authorization/authorize of quantity 1 on an order of
//     1,000,000,000 to an approved machine (every licence check, one atomic UPDATE, audit row), next
//     to its bare limit (bare-authorize-server.ts: the same reads and writes, one transaction per
//     request) in alternating rounds, each side's best kept, and the ratio.
//     --profile DIR: the server runs with --cpu-prof into DIR (open the .cpuprofile in Chrome DevTools).
//   npm run bench:instances [-- --databases postgres --duration 10 --connections 10 --rounds 2
//                              --proxy haproxy|node --generator wrk|autocannon --pool N]
//     the authorize load on one order and spread over 10, a console mix (half authorize, half
//     the screens' reads), those reads alone, and signed documents (authorization/download), through a round-robin proxy (HAProxy) to one and to two server processes
//     on one database, driven by wrk (alternating rounds); per answer the CPU of the servers, the
//     proxy, the load generator and the database (its kernel share, and its own transactions, rows
//     and blocks per answer); the books checked afterwards. --pool N: each server's
//     DATABASE_POOL_SIZE. HAProxy and wrk come from Debian's packages (installed when missing,
//     bench/native-load.ts); --proxy node and --generator autocannon use the Node proxy
//     (round-robin-proxy.ts) and autocannon instead.
//   npm run bench:download [-- --databases sqlite,postgres --duration 10 --connections 10 --rounds 2 --profile DIR]
//     GET /ui/authorization/download (the signed XML of one of 20 authorizations, the private
//     file's key wrapped for the machine) next to its bare limit (bare-download-server.ts: the same
//     reads prepared once, the same crypto and document, no framework), alternating rounds.
//   npm run bench:order-detail [-- --databases sqlite,postgres --orders 1000000 --duration 5]
//     one order with --orders authorizations (one through the API, the rest copies inserted in
//     batches), then GET /ui/order/fetch p99 for the first, a middle and the last page of them.
//   npm run bench:orders [-- --databases sqlite,postgres --orders 1000000 --duration 5]
//     seeds the orders table with batched multi-row inserts in transactions, then GET
//     /ui/order/list p99 for the first, a middle and the last page with a filter and a sort.
//
// PostgreSQL comes from TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); a
// scratch database is created and dropped.
import { randomBytes, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { TPage } from '@manifold/contract';
import { describeCertificate } from '../src/crypto/certificates.js';
import { createDatabase } from '../src/db/database.js';
import { parseDatabaseUrl } from '../src/config.js';
import { multipartForm } from '../test/helpers/multipart.js';
import { ensureNativeLoadTools, type LoadRequest, runWrk, startHaproxy } from './native-load.js';
import { startServer, type ServerProcess } from '../test/helpers/server-process.js';
import {
  benchTarget,
  type BenchCall,
  cpuSeconds,
  commandCpu,
  idlePercentSince,
  machineCpu,
  measure,
  measurePages,
  provisionBenchServer,
  registerBenchMachine,
  seededOrderRow,
  seedTable,
  startBenchCaller,
  startBenchProcess,
  type Target,
} from './bench-support.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'authorize' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    orders: { type: 'string', default: '1000000' },
    profile: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    proxy: { type: 'string', default: 'haproxy' },
    generator: { type: 'string', default: 'wrk' },
    pool: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

/** Provisions the server, builds a design revision, registers and approves a machine, adds an order. */
async function licensingWorld(call: BenchCall) {
  const { root, signing } = await provisionBenchServer(call);
  const upload = (url: string, fields: Parameters<typeof multipartForm>[0]) => {
    const { body, headers } = multipartForm(fields);
    return call('POST', url, body, headers);
  };
  const pkg = (await call('POST', '/ui/package/info', { designName: 'Bench bracket', companyName: 'Acme' })) as { dsiId: string };
  await upload('/ui/package/files/upload', {
    dsiId: pkg.dsiId,
    isPublic: 'false',
    file: { filename: 'b.3mf', content: randomBytes(50_000), contentType: 'application/octet-stream' },
  });
  const revision = (await call('POST', '/ui/package/build', { dsiId: pkg.dsiId })) as {
    dsiId: string;
    dsiVersion: number;
    digestValue: string;
  };
  const { deviceId } = await registerBenchMachine(call, root, 'bench-printer');
  /** An order of 1,000,000,000 with as many serial numbers and more. */
  const addOrder = async (orderNumber: string) =>
    (
      (await call('POST', '/ui/order/add', {
        authorizationAuthorizedPolicyList: {
          policyVersion: 1,
          orderNumber,
          companyName: 'Acme',
          sourceCompanyName: 'Acme',
          design: {
            dsiId: revision.dsiId,
            dsiVersion: revision.dsiVersion,
            digestMethod: 'SHA-256',
            digestValue: revision.digestValue,
          },
          keyRoles: [{ role: 'licensee', keySerialNumber: describeCertificate(signing).serialNumber }],
          quantity: 1_000_000_000,
          serialization: { type: 'Dec', start: 1, end: 2_000_000_000 },
        },
      })) as { orderId: string }
    ).orderId;
  return { orderId: await addOrder('BENCH-1'), deviceId, addOrder };
}

/** A benchmark server on a scratch database of `kind`, profiled into --profile DIR when given. */
async function profiledBenchServer(kind: string) {
  const t = await benchTarget(kind, 'manifold-licensing-bench-');
  const started = await startBenchCaller(t, values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : []);
  return { t, ...started };
}

/**
 * `authorization/download` on a started server, next to its bare limit (bare-download-server.ts):
 * the signed XML of one of 20 authorizations of an order (enveloped XML-DSig, the private file's
 * content key wrapped for the machine), alternating rounds, each side's best kept.
 */
async function benchDownload(kind: string) {
  const { t, server, call, auth } = await profiledBenchServer(kind);
  const processes = [server];
  try {
    const { orderId, deviceId } = await licensingWorld(call);
    const paths: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const { authorizationId } = (await call('POST', '/ui/authorization/authorize', { orderId, deviceId, quantity: 1 })) as {
        authorizationId: string;
      };
      paths.push(`/ui/authorization/download?orderId=${orderId}&authorizationId=${authorizationId}`);
    }
    const bare = await startServer(
      { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir },
      { file: path.resolve(import.meta.dirname, 'bare-download-server.ts'), inheritEnv: true },
    );
    processes.push(bare);
    const sides = [
      { title: `${kind}: bare limit (same queries and crypto, no framework)`, process: bare },
      { title: `${kind}: GET /ui/authorization/download (signed XML)`, process: server },
    ];
    // both sides hand out a document of the same size (within the signature's few bytes)
    const sizes = await Promise.all(
      sides.map(async ({ process: side }) => {
        const answer = await fetch(`${side.url}${paths[0]}`, { headers: auth });
        if (!answer.ok) throw new Error(`${side.url}: ${answer.status} ${await answer.text()}`);
        return (await answer.text()).length;
      }),
    );
    if (Math.abs(sizes[0]! - sizes[1]!) > 16) throw new Error(`the documents differ: ${sizes.join(' vs ')} characters`);
    const run = async (side: (typeof sides)[number], seconds: number) => {
      let next = 0;
      const cpuBefore = cpuSeconds(side.process.child.pid!);
      const result = await autocannon({
        url: side.process.url,
        connections,
        duration: seconds,
        headers: auth,
        requests: [{ setupRequest: (r: autocannon.Request) => ({ ...r, path: paths[next++ % paths.length] }) }],
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${side.title}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return {
        title: side.title,
        'requests/s': Math.round(result.requests.average),
        'p99 ms': result.latency.p99,
        'mean ms': Number(result.latency.average.toFixed(2)),
        'CPU ms/request': Number((((cpuSeconds(side.process.child.pid!) - cpuBefore) * 1000) / result['2xx']).toFixed(2)),
        'document chars': sizes[sides.indexOf(side)],
      };
    };
    for (const side of sides) await run(side, 2);
    const best: Awaited<ReturnType<typeof run>>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const [i, side] of sides.entries()) {
        const figure = await run(side, duration);
        if (!best[i] || figure['requests/s'] > best[i]['requests/s']) best[i] = figure;
      }
    }
    return [
      best[0]!,
      { ...best[1]!, ratio: Number((best[1]!['requests/s'] / best[0]!['requests/s']).toFixed(2)), load: loadAverage() },
    ];
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
    await t.drop();
  }
}

async function benchAuthorize(kind: string) {
  const { t, server, call, auth } = await profiledBenchServer(kind);
  const processes = [server];
  try {
    const { orderId, deviceId } = await licensingWorld(call);
    const bare = await startServer(
      { DATABASE_URL: t.databaseUrl },
      { file: path.resolve(import.meta.dirname, 'bare-authorize-server.ts'), inheritEnv: true },
    );
    processes.push(bare);
    const sides = [
      { title: `${kind}: bare limit (one transaction per request)`, url: bare.url },
      { title: `${kind}: POST /ui/authorization/authorize (quantity 1)`, url: server.url },
    ];
    const load = (url: string) => ({
      url: `${url}/ui/authorization/authorize`,
      connections,
      duration,
      headers: { ...auth, 'content-type': 'application/json' },
      method: 'POST' as const,
      body: JSON.stringify({ orderId, deviceId, quantity: 1 }),
    });
    for (const side of sides) {
      const { url, ...request } = load(side.url);
      const answer = await fetch(url, request);
      if (!answer.ok) throw new Error(`${side.title}: ${answer.status} ${await answer.text()}`);
    }
    // warm both up, then alternate rounds and keep each side's best (a neighbour's burst hits both alike)
    for (const side of sides) await measure('warm-up', { ...load(side.url), duration: 2 });
    const best: Awaited<ReturnType<typeof measure>>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const [i, side] of sides.entries()) {
        const figure = await measure(side.title, load(side.url));
        if (!best[i] || figure['requests/s'] > best[i]['requests/s']) best[i] = figure;
      }
    }
    const detail = (await call('GET', `/ui/order/fetch?orderId=${orderId}`)) as { allocatedQuantity: number };
    const limit = best[0]!['requests/s'];
    return [
      { ...best[0]!, load: loadAverage() },
      {
        ...best[1]!,
        ratio: Number((best[1]!['requests/s'] / limit).toFixed(2)),
        load: loadAverage(),
        'authorized in total': detail.allocatedQuantity,
      },
    ];
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
    await t.drop();
  }
}

/** The 1-minute load average, as `uptime` prints it. */
function loadAverage(): string {
  return os.loadavg()[0]!.toFixed(1);
}

const companies = 100;
const users = 50;

/** Batched multi-row inserts in transactions, straight into the orders table. */
async function seedOrders(t: Target, count: number): Promise<number> {
  const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
  await database.migrate();
  const started = performance.now();
  try {
    const dsiIds = Array.from({ length: 20 }, () => randomUUID());
    const base = Date.parse('2025-01-01T00:00:00Z');
    await seedTable(database, 'orders', 0, count, (i) => seededOrderRow(i, dsiIds, base, { companies, users }));
  } finally {
    await database.close();
  }
  return (performance.now() - started) / 1000;
}

async function benchOrders(kind: string) {
  const t = await benchTarget(kind, 'manifold-licensing-bench-');
  const count = Number(values.orders);
  // seed before the server opens the database (the migrations run here first)
  const seconds = await seedOrders(t, count);
  const { server, auth } = await startBenchCaller(t);
  try {
    console.log(
      `${kind}: seeded ${count.toLocaleString('en')} orders in ${seconds.toFixed(1)} s (${Math.round(count / seconds).toLocaleString('en')} rows/s)`,
    );
    const rows = [];
    const scenarios = [
      {
        name: 'filterByCompanyName, sortBy dateCreated desc',
        query: 'filterByCompanyName=Company%20042&sortBy=dateCreated&sortOrder=desc',
      },
      { name: 'no filter, sortBy companyName asc', query: 'sortBy=companyName&sortOrder=asc' },
    ];
    for (const scenario of scenarios) {
      rows.push(
        ...(
          await measurePages(
            `${kind}: ${scenario.name}`,
            auth,
            (page) => `${server.url}/ui/order/list?${scenario.query}&pageNum=${page}`,
            (body) => body as TPage<unknown>,
            { connections, duration },
          )
        ).rows,
      );
    }
    return rows;
  } finally {
    await server.stop();
    await t.drop();
  }
}

/**
 * One order with `--orders` authorizations (one made through the API, the rest copies of it
 * inserted in batches, spread over time with ties), then `order/fetch`'s page of them: first,
 * middle and last.
 */
async function benchOrderDetail(kind: string) {
  const t = await benchTarget(kind, 'manifold-licensing-bench-');
  const { server, call, auth } = await startBenchCaller(t);
  try {
    const { orderId, deviceId } = await licensingWorld(call);
    const { authorizationId } = (await call('POST', '/ui/authorization/authorize', { orderId, deviceId, quantity: 1 })) as {
      authorizationId: string;
    };
    const count = Number(values.orders);
    const database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
    const started = performance.now();
    try {
      const row = await database.db
        .selectFrom('authorizations')
        .selectAll()
        .where('id', '=', authorizationId)
        .executeTakeFirstOrThrow();
      const serial = (value: string | number | null) => (value === null ? null : Number(value));
      const base = Date.parse('2025-01-01T00:00:00Z');
      const copy = (i: number) => ({
        ...row,
        serial_first: serial(row.serial_first),
        serial_last: serial(row.serial_last),
        id: randomUUID(),
        created_at: new Date(base + Math.floor(i / 3) * 1000).toISOString(),
      });
      await seedTable(database, 'authorizations', 1, count - 1, copy);
    } finally {
      await database.close();
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`${kind}: seeded ${count.toLocaleString('en')} authorizations of one order in ${seconds.toFixed(1)} s`);
    return (
      await measurePages(
        `${kind}: order/fetch, the order's authorizations`,
        auth,
        (page) => `${server.url}/ui/order/fetch?orderId=${orderId}&pageNum=${page}`,
        (body) => (body as { authorizations: TPage<unknown> }).authorizations,
        { connections, duration },
      )
    ).rows;
  } finally {
    await server.stop();
    await t.drop();
  }
}

/**
 * Two server processes on one database behind a round-robin proxy against one process behind the
 * same proxy: authorize throughput and p99 on one order and spread over `spreadOrders` orders
 * (alternating rounds, each side's best kept), and afterwards the books checked (allocated =
 * 2xx answers, give or take the requests in flight when a measurement stopped).
 */
async function benchInstances(kind: string) {
  if (kind !== 'postgres') throw new Error('--mode instances needs a database server: --databases postgres');
  if (values.proxy !== 'node' && values.proxy !== 'haproxy') throw new Error(`--proxy ${values.proxy}: use haproxy or node`);
  if (values.generator !== 'wrk' && values.generator !== 'autocannon')
    throw new Error(`--generator ${values.generator}: use wrk or autocannon`);
  if (values.proxy === 'haproxy' || values.generator === 'wrk') ensureNativeLoadTools('bench:instances');
  const t = await benchTarget(kind, 'manifold-licensing-bench-');
  // --pool N: each server process's DATABASE_POOL_SIZE (default 10)
  const poolEnv: Record<string, string> = values.pool ? { DATABASE_POOL_SIZE: values.pool } : {};
  const { server, call, auth } = await startBenchCaller(t, [], poolEnv);
  const processes: ServerProcess[] = [server];
  let stats: pg.Client | undefined;
  try {
    const { orderId, deviceId, addOrder } = await licensingWorld(call);
    const spreadOrders = [orderId];
    for (let i = 2; i <= 10; i += 1) spreadOrders.push(await addOrder(`BENCH-${i}`));
    // the same DATA_DIR: the same key-encryption key and the same file storage, as docs/operations.md asks
    const second = await startBenchProcess(t.dataDir, { ...poolEnv, DATABASE_URL: t.databaseUrl });
    processes.push(second);
    const proxy = async (upstreams: ServerProcess[]) => {
      const started =
        values.proxy === 'node'
          ? await startServer(
              { UPSTREAMS: upstreams.map((upstream) => upstream.url).join(',') },
              { file: path.resolve(import.meta.dirname, 'round-robin-proxy.ts'), inheritEnv: true },
            ) // the proxy has no /healthz of its own: it forwards the upstream's
          : await startHaproxy(upstreams.map((upstream) => upstream.url));
      processes.push(started);
      return started;
    };
    const one = await proxy([server]);
    const two = await proxy([server, second]);
    // what the database did for the answers, from its own statistics (a busy backend reports them
    // at most once a second, so each side's window is off by about a second at either end)
    stats = new pg.Client({ connectionString: t.databaseUrl });
    await stats.connect();
    const statistics = stats;
    const databaseWork = async () => {
      const { rows } = await statistics.query<Record<string, string>>(
        `select xact_commit + xact_rollback as transactions, tup_returned + tup_fetched as rows,
                blks_hit + blks_read as blocks,
                (select count(*) from pg_stat_activity where datname = current_database()) as backends
           from pg_stat_database where datname = current_database()`,
      );
      return Object.fromEntries(Object.entries(rows[0]!).map(([key, value]) => [key, Number(value)]));
    };
    const authorize = (id: string): LoadRequest => ({
      method: 'POST',
      path: '/ui/authorization/authorize',
      body: JSON.stringify({ orderId: id, deviceId, quantity: 1 }),
    });
    /**
     * What the screens read (the order and authorization lists' first pages, an order, the machines,
     * the session); a console at work: half the requests authorize (over the ten orders), half read.
     */
    const screenReads: LoadRequest[] = spreadOrders.map(
      (id, i) =>
        [
          { method: 'GET', path: '/ui/order/list' },
          { method: 'GET', path: `/ui/authorization/list?orderId=${id}` },
          { method: 'GET', path: `/ui/order/fetch?orderId=${id}` },
          { method: 'GET', path: '/ui/device/list' },
          { method: 'GET', path: '/ui/user/login' },
        ][i % 5] as LoadRequest,
    );
    const consoleMix: LoadRequest[] = spreadOrders.flatMap((id, i) => [authorize(id), screenReads[i]!]);
    /**
     * Machines and engineers fetching signed authorizations (`authorization/download`: enveloped
     * XML-DSig, content keys wrapped for the machine): the server's own work outweighs the
     * database's (two reads and an audit row), so this load shows what a second process adds where
     * the server, not the shared database, is the limit. Filled after the loads above made them.
     */
    const signedDocuments: LoadRequest[] = [];
    /** `requests` in turn from every connection for `seconds`. */
    const drive = async (title: string, url: string, requests: LoadRequest[], seconds = duration) => {
      const common = { connections, duration: seconds, headers: { ...auth, 'content-type': 'application/json' } };
      if (values.generator === 'wrk') {
        const { ok, ...figures } = await runWrk(title, { ...common, origin: url, requests });
        return { ok, rate: figures['requests/s'], row: { title, ...figures } as Record<string, unknown> };
      }
      let next = 0;
      return autocannonCount(title, {
        ...common,
        url,
        // each request its own headers: autocannon writes a body's content-length into the object it
        // is given, and a GET sent with the POST's length stalls its connection
        requests: [
          {
            setupRequest: (r: autocannon.Request) => ({
              ...r,
              ...requests[next++ % requests.length],
              headers: { ...common.headers },
            }),
          },
        ],
      });
    };
    /** The orders' allocated quantity in all. */
    const allocatedInAll = async () => {
      let sum = 0;
      for (const id of spreadOrders)
        sum += ((await call('GET', `/ui/order/fetch?orderId=${id}`)) as { allocatedQuantity: number }).allocatedQuantity;
      return sum;
    };
    let answered = (await drive('warm-up', two.url, spreadOrders.map(authorize), 2)).ok;
    const rows: Record<string, unknown>[] = [];
    let allocatedByAuthorizeLoads = 0;
    for (const [scenario, requests] of [
      ['one order', [authorize(orderId)]],
      [`${spreadOrders.length} orders`, spreadOrders.map(authorize)],
      ['console mix', consoleMix],
      // the screens' reads alone, on the orders the loads above filled
      ['console reads', screenReads],
      ['signed documents', signedDocuments],
    ] as const) {
      if (scenario === 'signed documents')
        for (const id of spreadOrders) {
          const page = (await call('GET', `/ui/authorization/list?orderId=${id}&numberOfItems=10`)) as {
            data: { authorizationId: string }[];
          };
          for (const { authorizationId } of page.data)
            signedDocuments.push({
              method: 'GET',
              path: `/ui/authorization/download?orderId=${id}&authorizationId=${authorizationId}`,
            });
        }
      // the books of the authorize-only loads are checked against their answers (below)
      if (scenario === 'console mix') allocatedByAuthorizeLoads = await allocatedInAll();
      const sides = [
        { title: `${kind}, ${scenario}: one instance behind the proxy`, url: one.url, proxy: one, servers: [server] },
        { title: `${kind}, ${scenario}: two instances behind the proxy`, url: two.url, proxy: two, servers: [server, second] },
      ];
      const best: Awaited<ReturnType<typeof drive>>[] = [];
      for (let round = 0; round < rounds; round += 1) {
        for (const [i, side] of sides.entries()) {
          // the CPU the server processes spent per answer: a figure the neighbours' load moves far less
          const cpu = () => side.servers.reduce((sum, child) => sum + cpuSeconds(child.child.pid!), 0);
          // and where the rest of the machine went: the proxy, the load generator (this process and
          // the wrk it ran), the database
          const others = () => ({
            proxy: cpuSeconds(side.proxy.child.pid!),
            generator: cpuSeconds(process.pid, { children: true }),
          });
          const cpuBefore = cpu();
          const othersBefore = others();
          const machineBefore = machineCpu();
          const workBefore = await databaseWork();
          // PostgreSQL's processes counted one by one: the idle instance's pool closes connections
          const database = commandCpu('postgres');
          const sampling = setInterval(() => database.sample(), 1000);
          const result = await drive(side.title, side.url, [...requests]).finally(() => clearInterval(sampling));
          database.sample();
          const perRequest = (seconds: number) => Number(((seconds * 1000) / result.ok).toFixed(2));
          const othersAfter = others();
          const workAfter = await databaseWork();
          const workPerAnswer = (key: string) => Number(((workAfter[key]! - workBefore[key]!) / result.ok).toFixed(1));
          result.row['server CPU ms/request'] = perRequest(cpu() - cpuBefore);
          result.row['proxy'] = perRequest(othersAfter.proxy - othersBefore.proxy);
          result.row['load generator'] = perRequest(othersAfter.generator - othersBefore.generator);
          result.row['database'] = perRequest(database.spent().total);
          // of which in the kernel (scheduling, sockets, waking waiters)
          result.row['database system'] = perRequest(database.spent().system);
          result.row['database transactions'] = workPerAnswer('transactions');
          result.row['database rows'] = workPerAnswer('rows');
          result.row['database blocks'] = workPerAnswer('blocks');
          result.row['backends'] = workAfter['backends'];
          // what was left for a second process
          result.row['machine idle %'] = idlePercentSince(machineBefore);
          if (scenario === 'one order' || scenario === `${spreadOrders.length} orders`) answered += result.ok;
          if (!best[i] || result.rate > best[i].rate) best[i] = result;
        }
      }
      rows.push({ ...best[0]!.row, load: loadAverage() });
      rows.push({ ...best[1]!.row, ratio: Number((best[1]!.rate / best[0]!.rate).toFixed(2)), load: loadAverage() });
    }
    // the load generator stops with up to one request per connection in flight: those are served
    // (and allocated) but not counted, so the books hold between the 2xx answers and that many more
    const measurements = 1 + 2 * 2 * rounds;
    const inFlight = connections * measurements;
    if (allocatedByAuthorizeLoads < answered || allocatedByAuthorizeLoads > answered + inFlight) {
      throw new Error(`the books do not add up: ${answered} authorizations answered 2xx, ${allocatedByAuthorizeLoads} allocated`);
    }
    // and after every load, each order's allocated quantity is exactly its authorizations (of quantity 1)
    let authorizations = 0;
    for (const id of spreadOrders)
      authorizations += ((await call('GET', `/ui/authorization/list?orderId=${id}`)) as { totalNumOfItems: number })
        .totalNumOfItems;
    const allocated = await allocatedInAll();
    if (allocated !== authorizations) {
      throw new Error(`the books do not add up: ${authorizations} authorizations listed, ${allocated} allocated`);
    }
    rows.push({
      title: `${kind}: books: allocated by the authorize loads vs their 2xx answers (+ ≤ ${inFlight} in flight at the stops)`,
      'authorized in total': `${allocatedByAuthorizeLoads} vs ${answered}`,
    });
    rows.push({
      title: `${kind}: books: allocated after every load vs authorizations listed`,
      'authorized in total': `${allocated} vs ${authorizations}`,
    });
    return rows;
  } finally {
    await stats?.end();
    await Promise.all(processes.reverse().map((process) => process.stop()));
    await t.drop();
  }
}

/** `measure`, also answering how many requests got a 2xx (to check the books against). */
async function autocannonCount(title: string, load: autocannon.Options) {
  const result = await autocannon(load);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `${title}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`,
    );
  return {
    ok: result['2xx'],
    rate: result.requests.average,
    row: {
      title,
      'requests/s': Math.round(result.requests.average),
      'p99 ms': result.latency.p99,
      'mean ms': Number(result.latency.average.toFixed(2)),
    } as Record<string, unknown>,
  };
}

const kinds = values.databases.split(',').map((kind) => kind.trim());
console.log(`${values.mode}: ${connections} connections, ${duration} s per measurement, ${os.cpus().length} cores`);
const table = [];
for (const kind of kinds) {
  if (values.mode === 'authorize') table.push(...(await benchAuthorize(kind)));
  else if (values.mode === 'orders') table.push(...(await benchOrders(kind)));
  else if (values.mode === 'detail') table.push(...(await benchOrderDetail(kind)));
  else if (values.mode === 'instances') table.push(...(await benchInstances(kind)));
  else if (values.mode === 'download') table.push(...(await benchDownload(kind)));
  else throw new Error(`--mode ${values.mode}: use authorize, download, orders, detail or instances`);
}
console.table(table);
