import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * A read run on the driver itself instead of through Kysely's executor: its rows, or undefined
 * when it must go through Kysely after all (SQLite: the connection is held right now).
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]> | unknown[] | undefined;

const readers = new WeakMap<Kysely<DB>, DirectRead>();

/**
 * Lets `directRead` run reads on `db` (a database's Kysely instance, never a transaction's) with
 * `read`, passing each one's time to `onQuery` as Kysely's query log would (a pooled database's
 * includes waiting for a connection).
 */
export function enableDirectReads(
  db: Kysely<DB>,
  read: DirectRead,
  onQuery?: (milliseconds: number, failed: boolean) => void,
): void {
  if (!onQuery) {
    readers.set(db, read);
    return;
  }
  // no closure is made per read: tsx names each named closure as it is made (a defineProperty)
  readers.set(db, (sql, parameters) => {
    const started = performance.now();
    let rows: ReturnType<DirectRead>;
    try {
      rows = read(sql, parameters);
    } catch (error) {
      onQuery(performance.now() - started, true);
      throw error;
    }
    if (rows === undefined) return undefined;
    if (!(rows instanceof Promise)) {
      onQuery(performance.now() - started, false);
      return rows;
    }
    return timed(rows, started, onQuery);
  });
}

async function timed(
  rows: Promise<unknown[]>,
  started: number,
  onQuery: (milliseconds: number, failed: boolean) => void,
): Promise<unknown[]> {
  try {
    const answered = await rows;
    onQuery(performance.now() - started, false);
    return answered;
  } catch (error) {
    onQuery(performance.now() - started, true);
    throw error;
  }
}

/**
 * The rows of a read run on the driver of `db` (see `enableDirectReads`), or undefined when it
 * must go through Kysely: no direct reads on this database (MariaDB), a transaction's handle, or
 * a SQLite connection held right now.
 */
export function directRead(
  db: Kysely<DB>,
  sql: string,
  parameters: readonly unknown[],
): Promise<unknown[]> | unknown[] | undefined {
  return readers.get(db)?.(sql, parameters);
}
