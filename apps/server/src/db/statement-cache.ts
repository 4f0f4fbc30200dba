import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

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
