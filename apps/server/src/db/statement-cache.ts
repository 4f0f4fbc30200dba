import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import { CompiledQuery, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every statement on every execution; preparing costs more than
 * running a short indexed query. This keeps the most recently used prepared statements by their
 * SQL text (a query builder produces the same text for the same shape of query, with values as
 * parameters) and hands a fresh one out only while a cached one is still iterating a stream.
 * SQLite re-prepares a cached statement itself when the schema changes under it.
 */
export function cachingStatements(connection: SqliteConnection, capacity = 500): SqliteDatabase {
  // each entry remembers when it was last used; a hit only updates that number (no reordering of
  // the map per query), and the least recently used entry goes when the cache is full
  const statements = new Map<string, { statement: Statement; used: number }>();
  let clock = 0;
  return {
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached) {
        if (cached.statement.busy) return connection.prepare(sql);
        cached.used = ++clock;
        return cached.statement;
      }
      const statement = connection.prepare(sql);
      if (statements.size >= capacity) statements.delete(leastRecentlyUsed(statements));
      statements.set(sql, { statement, used: ++clock });
      return statement;
    },
    close() {
      statements.clear();
      connection.close();
    },
  };
}

function leastRecentlyUsed(entries: Map<string, { used: number }>): string {
  let oldest: string | undefined;
  let oldestUse = Infinity;
  for (const [key, { used }] of entries) {
    if (used < oldestUse) {
      oldest = key;
      oldestUse = used;
    }
  }
  return oldest!;
}

/**
 * Kysely's SQLite driver, saying whether a query, a stream or a transaction holds the connection
 * right now, and opening every transaction with `begin immediate`.
 *
 * Kysely's plain (deferred) `begin` takes the write lock only at the transaction's first write.
 * A transaction that read first and another process (a second server on the same file) committed
 * since cannot take it at all: its snapshot is stale, SQLite answers SQLITE_BUSY at once and
 * busy_timeout does not help — the request failed with 500. `begin immediate` takes the write lock
 * before the first read, waiting up to busy_timeout for another process's writer, so what the
 * transaction reads is the latest and its writes cannot be refused so. In one process the one
 * connection runs transactions one at a time anyway: this costs nothing there. A transaction that
 * only reads holds off other processes' writers for as long as it runs.
 */
class WatchedSqliteDriver extends SqliteDriver {
  held = false;

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.held = false;
    await super.releaseConnection();
  }
}

export interface SqliteDialectParts {
  dialect: SqliteDialect;
  /** A read run at once on the connection, or undefined while a query, stream or transaction holds it. */
  readAtOnce(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
}

/**
 * SQLite changes its schema inside a transaction like any other write; Kysely's adapter says it
 * does not, and its migrator then runs each migration without one, so a migration (or a `down`)
 * that failed half-way left half its changes. With this, a migrate call on SQLite runs in one
 * transaction, as on PostgreSQL: it is done whole or not at all.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * Kysely's SQLite dialect on `connection` with its statements kept (`cachingStatements`), and
 * reads at once: Kysely queues every query for the one connection through a dozen promises,
 * although on SQLite a read is one synchronous call. While nothing holds the connection (no
 * query, stream or transaction, the connection in autocommit), running a read at once is what
 * the queue would do, so `readAtOnce` does that (for `enableDirectReads`); otherwise it answers
 * undefined and the read queues as before, so it never sees another request's uncommitted rows.
 */
export function sqliteDialect(connection: SqliteConnection): SqliteDialectParts {
  const config = { database: cachingStatements(connection) };
  const reads = new Map<string, (parameters: readonly unknown[]) => unknown[]>();
  const driver = new WatchedSqliteDriver(config);
  const dialect = new (class extends SqliteDialect {
    override createDriver() {
      return driver;
    }
    override createAdapter() {
      return new TransactionalDdlAdapter();
    }
  })(config);
  return {
    dialect,
    readAtOnce(sql, parameters) {
      if (driver.held || connection.inTransaction) return undefined;
      let read = reads.get(sql);
      if (!read) {
        read = rowReader(connection.prepare(sql), sql);
        if (reads.size >= readCapacity) reads.clear();
        reads.set(sql, read);
      }
      return read(parameters);
    },
  };
}

/** How many different reads `readAtOnce` keeps prepared (they are the precompiled queries: a few dozen). */
const readCapacity = 500;

/**
 * The rows of a read statement, each an object of its column names: better-sqlite3 makes each row
 * by looking every column name up in V8's string table and builds it as a dictionary (slow to
 * read); here the statement answers plain value lists and each row is built with the names read
 * once, so every row has the same fast shape. The statement is this reader's own (never
 * iterating, so never busy). Columns are read when it is prepared: the schema does not change
 * while the server runs (migrations run before it starts).
 */
function rowReader(statement: Statement, sql: string): (parameters: readonly unknown[]) => unknown[] {
  if (!statement.reader) throw new Error(`readAtOnce runs reads only: ${sql}`);
  statement.raw(true);
  const names = statement.columns().map((column) => column.name);
  return (parameters) => {
    const lists = statement.all(parameters) as unknown[][];
    const rows: Record<string, unknown>[] = new Array(lists.length);
    for (let r = 0; r < lists.length; r += 1) {
      const values = lists[r]!;
      const row: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c += 1) row[names[c]!] = values[c];
      rows[r] = row;
    }
    return rows;
  };
}
