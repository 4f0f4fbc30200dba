import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every statement on every execution; preparing costs more than
 * running a short indexed query. This keeps the most recently used prepared statements by their
 * SQL text (a query builder produces the same text for the same shape of query, with values as
 * parameters) and hands a fresh one out only while a cached one is still iterating a stream.
 * SQLite re-prepares a cached statement itself when the schema changes under it.
 */
export function cachingStatements(connection: SqliteConnection, capacity = 500): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached) {
        if (cached.busy) return connection.prepare(sql);
        // most recently used last: a Map iterates in insertion order, so the first key is the oldest
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = connection.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) statements.delete(statements.keys().next().value!);
      return statement;
    },
    close() {
      statements.clear();
      connection.close();
    },
  };
}

/** Kysely's SQLite driver, saying whether a query, a stream or a transaction holds the connection right now. */
class WatchedSqliteDriver extends SqliteDriver {
  held = false;

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
 * Kysely's SQLite dialect on `connection` with its statements kept (`cachingStatements`), and
 * reads at once: Kysely queues every query for the one connection through a dozen promises,
 * although on SQLite a read is one synchronous call. While nothing holds the connection (no
 * query, stream or transaction, the connection in autocommit), running a read at once is what
 * the queue would do, so `readAtOnce` does that (for `enableDirectReads`); otherwise it answers
 * undefined and the read queues as before, so it never sees another request's uncommitted rows.
 */
export function sqliteDialect(connection: SqliteConnection): SqliteDialectParts {
  const config = { database: cachingStatements(connection) };
  const driver = new WatchedSqliteDriver(config);
  const dialect = new (class extends SqliteDialect {
    override createDriver() {
      return driver;
    }
  })(config);
  return {
    dialect,
    readAtOnce(sql, parameters) {
      if (driver.held || connection.inTransaction) return undefined;
      const statement = config.database.prepare(sql) as Statement;
      if (!statement.reader) throw new Error(`readAtOnce runs reads only: ${sql}`);
      return statement.all(parameters) as unknown[];
    },
  };
}
