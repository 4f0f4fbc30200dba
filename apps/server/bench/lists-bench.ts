// Every paged list of the console at scale, on a started server (HTTP, autocannon):
//
//   npm run bench:lists [-- --databases sqlite,postgres,mysql --rows 1000000 --duration 3 --connections 10
//                          --lists order,authorization,user,device,package,event,audit,part,build]
//     for each database: a scratch database, migrated, then each list's table seeded with --rows
//     rows (batched multi-row inserts in transactions, straight into the table; the time per table
//     is printed); rows that name a parent (authorizations an order, parts a build) name one of 20
//     seeded parents, and each filter value picks 1 row in 20. Then a server on it, and for every
//     list unfiltered and with one filter: the first, a middle and the last page (the first call
//     and the first visit to each page timed once, then each page measured after a warm-up, as
//     bench:orders does), and the slowest page's mean latency over the fastest's. At the end one
//     table: database, list, filter, rows, first/middle/last mean ms, that ratio and whether it is
//     within 1.5 (issue 17: every list within 1.5× at 1,000,000 rows, filtered or not).
//
// PostgreSQL and MariaDB come from TEST_POSTGRES_URL and TEST_MYSQL_URL (defaults on 127.0.0.1); a
// scratch database is created and dropped.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { type Insertable, sql } from 'kysely';
import { auditEventTypes, traceEventKinds, type TPage } from '@manifold/contract';
import { parseDatabaseUrl } from '../src/config.js';
import { createDatabase, type Database } from '../src/db/database.js';
import type { DB } from '../src/db/schema.js';
import type { BuildsTable } from '../src/db/schema-trace.js';
import type { OrderValues } from '../src/db/schema-licensing.js';
import { hashPassword } from '../src/lib/passwords.js';
import { usernameKey } from '../src/modules/users/usernames.js';
import {
  analyzeTables,
  benchPassword,
  benchTarget,
  measurePages,
  seededOrderRow,
  seedTable,
  startBenchServer,
  type Target,
} from './bench-support.js';
import {
  seededAuditRow,
  seededAuthorizationRow,
  seededBuildRow,
  seededPartRow,
  seededTraceEventRow,
} from '../test/helpers/seeded-rows.js';

const lists = {
  order: {
    path: '/ui/order/list',
    filters: [
      ['none', ''],
      ['filterByCompanyName, sortBy dateCreated desc', 'filterByCompanyName=Company%20007&sortBy=dateCreated&sortOrder=desc'],
    ],
  },
  authorization: {
    path: '/ui/authorization/list',
    filters: [
      ['none', ''],
      ['orderId (one order)', 'orderId='],
      ['filterByCompanyName, sortBy dateCreated desc', 'filterByCompanyName=Company%20007&sortBy=dateCreated&sortOrder=desc'],
    ],
  },
  user: {
    path: '/ui/user/list',
    filters: [
      ['none', ''],
      ['search "Team 07"', 'search=Team%2007'],
    ],
  },
  device: {
    path: '/ui/device/list',
    filters: [
      ['none', ''],
      ['approved=true', 'approved=true'],
    ],
  },
  package: {
    path: '/ui/package/list',
    filters: [
      ['none', ''],
      ['name "series-07"', 'name=series-07'],
    ],
  },
  event: {
    path: '/ui/event/list',
    filters: [
      ['none', ''],
      ['dsiId (one design)', 'dsiId='],
    ],
  },
  audit: {
    path: '/ui/audit/list',
    filters: [
      ['none', ''],
      ['kind (one kind)', 'kind='],
    ],
  },
  part: {
    path: '/ui/part/list',
    filters: [
      ['none', ''],
      ['dsiId (one design)', 'dsiId='],
    ],
  },
  build: {
    path: '/ui/build/list',
    filters: [
      ['none', ''],
      ['dsiId (one design)', 'dsiId='],
    ],
  },
} satisfies Record<string, { path: string; filters: [name: string, query: string][] }>;
type ListName = keyof typeof lists;

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'sqlite,postgres,mysql' },
    rows: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    lists: { type: 'string', default: Object.keys(lists).join(',') },
  },
});
const rows = Number(values.rows);
const duration = Number(values.duration);
const connections = Number(values.connections);
const chosen = values.lists.split(',').map((name) => name.trim());
for (const name of chosen) {
  if (!(name in lists)) throw new Error(`--lists: ${name} is not one of ${Object.keys(lists).join(', ')}`);
}
const listed = new Set(chosen as ListName[]);

/** How many parents (orders, builds, designs, machines…) the rows spread over: each filter value picks 1 row in this many. */
const spread = 20;
if (!(rows >= spread)) throw new Error(`--rows: at least ${spread}`);

const ids = () => Array.from({ length: spread }, () => randomUUID());
const designs = ids();
const machines = ids();
const parentOrders = ids();
const parentAuthorizations = ids();
const parentBuilds = ids();
const base = Date.parse('2025-01-01T00:00:00Z');
const at = (i: number) => new Date(base + i * 1000).toISOString();
const twoDigits = (i: number) => String(i % spread).padStart(2, '0');
const auditKinds = auditEventTypes.slice(0, spread);

/** The value given to each filter that takes an id or a kind: the eighth of the spread (1 row in 20), like Company 007. */
const filterValues: Partial<Record<ListName, string>> = {
  authorization: parentOrders[7]!,
  event: designs[7]!,
  audit: auditKinds[7]!,
  part: designs[7]!,
  build: designs[7]!,
};

/**
 * Orders over 20 companies (Company 000 … 019), none archived: the list holds every seeded row, so
 * --rows 1000000 lists 1,000,000 orders and its last page is as full as the others (with one in ten
 * archived, as seededOrderRow has them, 900,002 were listed and the last page held 2). The first 20
 * are the authorizations' parents.
 */
function orderRow(i: number): OrderValues {
  const row = { ...seededOrderRow(i, designs, base, { companies: spread, users: 50 }), archived: 0 };
  return i < spread ? { ...row, id: parentOrders[i]! } : row;
}
const parentOrderRows = parentOrders.map((_, p) => orderRow(p));

function authorizationRow(i: number): Insertable<DB['authorizations']> {
  const order = parentOrderRows[i % spread]!;
  return {
    ...seededAuthorizationRow(order, i, base),
    id: i < spread ? parentAuthorizations[i]! : randomUUID(),
    device_id: machines[i % spread]!,
    company_name: order.company_name,
    user_id: order.user_id,
    archived: 0,
  };
}

/** Users; the first is the administrator the server logs in as (with users seeded it creates none). */
function userRow(adminHash: string) {
  return (i: number): Insertable<DB['users']> => {
    const username = i === 0 ? 'admin' : `user${String(i).padStart(7, '0')}`;
    return {
      username,
      username_key: usernameKey(username),
      password_hash: i === 0 ? adminHash : null,
      first_name: i === 0 ? 'Site' : `First ${i}`,
      last_name: i === 0 ? 'Administrator' : `Team ${twoDigits(i)}`,
      email: `${username}@example.com`,
      company: null,
      role: i === 0 ? 'ADMIN' : 'USER',
      time_zone: 'UTC',
      language: 'en_US',
      use_sso: 0,
      created_at: at(i),
      updated_at: at(i),
    };
  };
}

/** Machines, 1 in 20 approved, the rest pending. */
function deviceRow(i: number): Insertable<DB['devices']> {
  return {
    id: randomUUID(),
    registration_state: i % spread === 7 ? 'Approved' : 'Pending',
    identity_id: `machine-${i}`,
    name: `Machine ${i}`,
    serial_number: `SN-${i}`,
    model: 'X1',
    family: null,
    manufacturer: 'Acme',
    device_class: null,
    technology: null,
    image: null,
    parameter_version: null,
    parameters: '[]',
    authorized_users: '[]',
    // the list shows no certificate: the columns only have to be filled (fingerprints unique)
    signing_certificate: '',
    signing_fingerprint: `seeded-signing-${i}`,
    encryption_certificate: '',
    encryption_fingerprint: `seeded-encryption-${i}`,
    disabled: 0,
    version: 1,
    source_ip: null,
    created_at: at(i),
    updated_at: at(i),
  };
}

function packageRow(i: number): Insertable<DB['packages']> {
  return {
    id: randomUUID(),
    design_name: `Design ${String(i).padStart(7, '0')} series-${twoDigits(i)}`,
    description: '',
    company_name: 'Acme',
    multi_platen: 0,
    display_image: null,
    version: 1,
    created_by: 'admin',
    created_at: at(i),
    updated_at: at(i),
  };
}

/** Trace events of 20 machines (each its own sequence) over 20 designs, of no licence or job. */
function eventRow(i: number): Insertable<DB['trace_events']> {
  return { ...seededTraceEventRow(i, base, machines, designs), kind: traceEventKinds[i % traceEventKinds.length]! };
}

function auditRow(i: number): Insertable<DB['audit_events']> {
  return {
    ...seededAuditRow(i, base),
    event_type: auditKinds[i % spread]!,
    actor: `user${i % 50}`,
    subject: designs[i % spread]!,
  };
}

/** Builds (one job each) under the 20 authorizations, each of one design; the first 20 are the parts' parents. */
function buildRow(i: number): BuildsTable {
  const p = i % spread;
  return {
    ...seededBuildRow(i, base, { id: parentOrders[p]!, dsi_id: designs[p]! }, machines[p]!),
    id: i < spread ? parentBuilds[i]! : randomUUID(),
    authorization_id: parentAuthorizations[p]!,
  };
}
const parentBuildRows = parentBuilds.map((_, p) => buildRow(p));

/** Parts of the 20 parent builds (so of their design, licence and machine). */
function partRow(i: number): Insertable<DB['parts']> {
  return seededPartRow(i, base, parentBuildRows[i % spread]!);
}

/** Seeds the chosen lists' tables (and the few parents another list needs), printing the time per table. */
async function seed(t: Target): Promise<void> {
  const database: Database = createDatabase(parseDatabaseUrl(t.databaseUrl, t.dataDir));
  await database.migrate();
  const timed = async <T extends keyof DB & string>(table: T, count: number, row: (i: number) => Insertable<DB[T]>) => {
    const started = performance.now();
    await seedTable(database, table, 0, count, row);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${t.kind}: seeded ${count.toLocaleString('en')} ${table} in ${seconds.toFixed(1)} s (${Math.round(count / seconds).toLocaleString('en')} rows/s)`,
    );
  };
  try {
    if (listed.has('order') || listed.has('authorization')) await timed('orders', listed.has('order') ? rows : spread, orderRow);
    if (listed.has('authorization')) await timed('authorizations', rows, authorizationRow);
    if (listed.has('user')) await timed('users', rows, userRow(await hashPassword(benchPassword)));
    if (listed.has('device')) await timed('devices', rows, deviceRow);
    if (listed.has('package')) await timed('packages', rows, packageRow);
    if (listed.has('event')) await timed('trace_events', rows, eventRow);
    if (listed.has('audit')) await timed('audit_events', rows, auditRow);
    if (listed.has('build') || listed.has('part')) await timed('builds', listed.has('build') ? rows : spread, buildRow);
    if (listed.has('part')) await timed('parts', rows, partRow);
    await settle(database);
  } finally {
    await database.close();
  }
}

/**
 * Lets the database finish the cleanup the seeding left, before any page is timed: the triggers
 * updated the list counts' rows with every insert (on MariaDB and SQLite for every row: 9,000,000
 * updates for all the lists), so PostgreSQL's autovacuum would otherwise clean that table in the
 * middle of the measurements, and MariaDB's purge threads would still be removing the old versions
 * of those rows and the seeded ones' undo records (its history list) while the pages are timed.
 * The table is vacuumed and analysed here; on MariaDB the history list is waited for until nearly
 * empty (at most 15 minutes). Prints what it took.
 */
async function settle(database: Database): Promise<void> {
  const started = performance.now();
  await analyzeTables(database, ['list_counts']);
  const { kind } = database.dialect;
  let history: number | undefined;
  if (kind === 'mysql') {
    const historyLength = async () => {
      const { rows } = await sql<{ Value: string }>`show global status like 'Innodb_history_list_length'`.execute(database.db);
      return Number(rows[0]?.Value ?? 0);
    };
    const deadline = started + 15 * 60_000;
    while ((history = await historyLength()) > 1_000 && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const waited = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${kind}: settled after seeding in ${waited} s (list counts vacuumed and analysed${history === undefined ? '' : `; InnoDB history list ${history.toLocaleString('en')}`})`,
  );
}

interface Summary {
  database: string;
  list: string;
  filter: string;
  rows?: number;
  'first ms'?: number;
  'middle ms'?: number;
  'last ms'?: number;
  'slowest/fastest'?: number;
  'within 1.5'?: string;
  error?: string;
}

async function bench(kind: string): Promise<Summary[]> {
  const t = await benchTarget(kind, 'manifold-lists-bench-');
  try {
    // seed before the server opens the database (the migrations run here first)
    await seed(t);
    const { server, auth } = await startBenchServer(t.dataDir, { DATABASE_URL: t.databaseUrl });
    try {
      const summary: Summary[] = [];
      for (const name of listed) {
        const { path, filters } = lists[name];
        for (const [filter, query] of filters) {
          const list = path.replace('/ui/', '');
          const search = query.endsWith('=') ? `${query}${filterValues[name]!}&` : query ? `${query}&` : '';
          const title = `${kind}: ${list}, filter ${filter}`;
          try {
            const measured = await measurePages(
              title,
              auth,
              (page) => `${server.url}${path}?${search}pageNum=${page}`,
              (body) => body as TPage<unknown>,
              { connections, duration },
            );
            const [first, middle, last] = measured.rows.map((row) => row['mean ms']);
            summary.push({
              database: kind,
              list,
              filter,
              rows: measured.totalNumOfItems,
              'first ms': first!,
              'middle ms': middle!,
              'last ms': last!,
              'slowest/fastest': Number(measured.ratio.toFixed(2)),
              'within 1.5': measured.ratio <= 1.5 ? 'yes' : 'NO',
            });
          } catch (error) {
            // one failing list (an error answer, a timeout) does not hide the others' figures
            const message = error instanceof Error ? error.message : String(error);
            console.error(`${title}: ${message}`);
            summary.push({ database: kind, list, filter, error: message.slice(0, 200) });
            process.exitCode = 1;
          }
        }
      }
      return summary;
    } finally {
      await server.stop();
    }
  } finally {
    await t.drop();
  }
}

console.log(
  `lists: ${rows.toLocaleString('en')} rows per list, ${connections} connections, ${duration} s per measurement, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
);
const table: Summary[] = [];
for (const kind of values.databases.split(',')) table.push(...(await bench(kind.trim())));
console.table(table);
