import path from 'node:path';
import type SQLite from 'better-sqlite3';
import type * as MySql from 'mysql2';
import type * as Pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  MysqlDialect,
  PostgresDialect,
  sql,
  type Dialect as KyselyDialect,
  type LogEvent,
  type Transaction,
} from 'kysely';
import type { TDatabaseConfig } from '@manifold/contract';
import { DEFAULT_POOL_SIZE, type DatabaseTarget } from '../config.js';
import { lazyPackage } from '../lib/lazy-package.js';
import { assertPrivateFile, createPrivateFile, makePrivateDirectory } from '../lib/private-files.js';
import { createDialect, type Dialect } from './dialect.js';
import { nameStatements } from './pg-named-statements.js';
import { enableDirectReads, type DirectRead } from './direct-reads.js';
import { sqliteDialect } from './statement-cache.js';
import { migrationProvider } from './migrations/index.js';
import type { DB } from './schema.js';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** What `GET admin/database` reports: never the password. */
  describe(): TDatabaseConfig;
  migrate(): Promise<void>;
  ping(): Promise<boolean>;
  /** The connection pool's state (PostgreSQL), or null where there is no pool to watch. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The callbacks to run once a transaction opened by `Database.transaction` has committed, by its handle. */
const commitHooks = new WeakMap<Kysely<DB>, (() => void)[]>();

/**
 * Runs `hook` once the transaction `db` belongs to (opened through `Database.transaction`) has
 * committed — never when it rolls back; at once (on the next microtask) when `db` is not such a
 * transaction. For work that must see what the transaction wrote, such as waking the outbox's
 * delivery worker. Keyed by the handle rather than an AsyncLocalStorage: on Node 20 one store in
 * use turns on promise hooks for every promise of every request.
 */
export function afterCommit(db: Kysely<DB>, hook: () => void): void {
  const hooks = commitHooks.get(db);
  if (hooks) hooks.push(hook);
  else queueMicrotask(hook);
}

export interface DatabaseOptions {
  /**
   * SQLite `synchronous`. FULL (the default) syncs the write-ahead log at every commit, so a 2xx
   * survives a power loss or OS crash; NORMAL survives a killed process only.
   */
  sqliteSynchronous?: 'FULL' | 'NORMAL';
  /**
   * Most connections the pool opens to PostgreSQL or MariaDB/MySQL (`DATABASE_POOL_SIZE`, default
   * 10); requests past it wait for a free one.
   */
  poolSize?: number;
  /** Called after every query with its duration (metrics); costs a clock read per query. */
  onQuery?: (milliseconds: number, failed: boolean) => void;
}

type PoolStats = ReturnType<Database['poolStats']>;

/** The drivers, each loaded only by a server that uses its database. */
const sqliteDriver = lazyPackage<typeof SQLite>('better-sqlite3');
const pgDriver = lazyPackage<typeof Pg>('pg');
const mysqlDriver = lazyPackage<typeof MySql>('mysql2');

function kyselyDialect(
  target: DatabaseTarget,
  options: DatabaseOptions,
): { dialect: KyselyDialect; poolStats(): PoolStats; directRead?: DirectRead } {
  if (target.kind === 'sqlite') {
    if (target.file !== ':memory:') {
      makePrivateDirectory(path.dirname(target.file));
      assertPrivateFile(target.file);
      createPrivateFile(target.file);
    }
    const connection = new (sqliteDriver())(target.file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma('busy_timeout = 5000');
    connection.pragma(`synchronous = ${options.sqliteSynchronous ?? 'FULL'}`);
    const { dialect, readAtOnce } = sqliteDialect(connection);
    return { dialect, poolStats: () => null, directRead: readAtOnce };
  }
  if (target.kind === 'postgres') {
    // Counts and sums come back as strings (int8); repositories convert with Number().
    const pool = new (pgDriver().Pool)({ connectionString: target.url, max: options.poolSize ?? DEFAULT_POOL_SIZE });
    // An idle connection the server closed (restart, failover, admin command) is dropped from the
    // pool and replaced on next use; without a listener its error would end the process.
    pool.on('error', () => undefined);
    return {
      dialect: new PostgresDialect({ pool: nameStatements(pool, pgDriver().Query) }),
      // what Kysely's driver does for a query (a pooled client, the query, release), without its executor
      directRead: async (sql, parameters) => {
        const client = await pool.connect();
        try {
          return (await client.query(sql, parameters as unknown[])).rows as unknown[];
        } finally {
          client.release();
        }
      },
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  return {
    dialect: new MysqlDialect({
      pool: mysqlDriver().createPool({
        uri: target.url,
        connectionLimit: options.poolSize ?? DEFAULT_POOL_SIZE,
        supportBigNumbers: true,
        timezone: 'Z',
      }),
      // A literal takes the connection's collation (mysql2's is utf8mb4_unicode_ci), the tables the
      // database's: where they differ, MariaDB takes `order_id = '…'` for no constant when it
      // orders, and sorted all of an order's authorizations for each page of them (5 ms at 10,000,
      // against 0.5 ms in the index's order). Each connection compares as the database's tables do.
      onCreateConnection: async (connection) => {
        await connection.executeQuery(
          CompiledQuery.raw(
            "set collation_connection = if(@@character_set_database = 'utf8mb4', @@collation_database, @@collation_connection)",
          ),
        );
      },
    }),
    // mysql2's pool keeps its counts private
    poolStats: () => null,
  };
}

function describeTarget(target: DatabaseTarget): TDatabaseConfig {
  if (target.kind === 'sqlite') {
    return target.file === ':memory:'
      ? { databaseType: 'memory', databaseHost: null, databasePort: null, databaseName: null, databaseUser: null }
      : { databaseType: 'sqlite', databaseHost: null, databasePort: null, databaseName: target.file, databaseUser: null };
  }
  const url = new URL(target.url);
  // as the drivers read the URL: node-postgres takes a `host` parameter over the URL's host (a
  // path names the directory of the server's Unix socket), mysql2 a `socketPath`; a server on its
  // socket is reached on no port
  const hostParameter = target.kind === 'postgres' ? url.searchParams.get('host') : null;
  const socket =
    target.kind === 'postgres' ? (hostParameter?.startsWith('/') ? hostParameter : null) : url.searchParams.get('socketPath');
  return {
    databaseType: target.kind,
    databaseHost: socket || hostParameter || url.hostname || null,
    databasePort: socket ? null : url.port ? Number(url.port) : target.kind === 'postgres' ? 5432 : 3306,
    databaseName: decodeURIComponent(url.pathname.replace(/^\//, '')) || null,
    databaseUser: decodeURIComponent(url.username) || null,
  };
}

/**
 * The database as a start-up failure names it: the URL without its password (nor a query
 * parameter that could hold a secret), or the SQLite file.
 */
function databaseName(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return target.file === ':memory:' ? 'sqlite::memory:' : `sqlite:${target.file}`;
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return `a ${target.kind} database (its DATABASE_URL is not a URL)`;
  }
  const kept = [...url.searchParams].filter(([name]) => !/pass|secret|key|token|cert/i.test(name));
  url.password = '';
  url.search = '';
  return `${url.toString()}${kept.length > 0 ? `?${kept.map(([name, value]) => `${name}=${value}`).join('&')}` : ''}`;
}

/** A driver's error in one line; a connection refused on every address can come without a message. */
function failureReason(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(failureReason).join('; ');
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return error.message || (typeof code === 'string' ? code : error.name);
}

export function createDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Database {
  const { dialect: kyselyDialectOf, poolStats, directRead } = kyselyDialect(target, options);
  const onQuery = options.onQuery;
  const db = new Kysely<DB>({
    dialect: kyselyDialectOf,
    ...(onQuery ? { log: (event: LogEvent) => onQuery(event.queryDurationMillis, event.level === 'error') } : {}),
  });
  if (directRead) enableDirectReads(db, directRead, onQuery);
  const dialect = createDialect(target.kind);
  return {
    db,
    dialect,
    describe: () => describeTarget(target),
    poolStats,
    async migrate() {
      // a database the server cannot reach (down, wrong address or name, refused login) is said
      // to be that, not a failed migration
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        throw new Error(`cannot connect to the database ${databaseName(target)}: ${failureReason(error)}`);
      }
      // Migrations are numbered by the piece of work that adds them, and pieces land in any order:
      // a database that has run a later number still runs an earlier one that arrives after it
      // (each migration touches only its own tables and columns).
      const migrator = new Migrator({ db, provider: migrationProvider(target.kind), allowUnorderedMigrations: true });
      const { error, results } = await migrator.migrateToLatest();
      const failed = results?.find((result) => result.status === 'Error');
      if (error || failed) {
        const reason = error === undefined ? 'unknown error' : failureReason(error);
        throw new Error(
          failed ? `database migration ${failed.migrationName} failed: ${reason}` : `database migrations failed: ${reason}`,
        );
      }
    },
    async ping() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    async transaction(work) {
      const hooks: (() => void)[] = [];
      const result = await db.transaction().execute((trx) => {
        commitHooks.set(trx, hooks);
        return work(trx);
      });
      for (const hook of hooks) hook();
      return result;
    },
    close: () => db.destroy(),
  };
}
