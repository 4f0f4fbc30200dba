import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseKind } from '../config.js';
import type { DB } from './schema.js';

/** SQL texts written so far, by database, table, columns and row count. */
const texts = new Map<string, string>();

/**
 * Inserts `rows` into `table` in one multi-row insert whose SQL text is written here instead of
 * built by Kysely's insert builder (which parses every value of every row into nodes, then
 * compiles them: a measurable share of a 500-event batch). The text depends only on the database,
 * the table, the columns and the row count, so it is written once, and the connection's statement
 * cache (SQLite's `cachingStatements`, PostgreSQL's named statements) prepares it once. The values
 * are bound as parameters in column order; every row must have every column.
 */
export async function insertRows<T extends keyof DB & string>(
  db: Kysely<DB>,
  kind: DatabaseKind,
  table: T,
  columns: readonly (keyof DB[T] & string)[],
  rows: readonly { [C in keyof DB[T] & string]?: unknown }[],
): Promise<void> {
  if (rows.length === 0) return;
  const key = `${kind}|${table}|${columns.join(',')}|${rows.length}`;
  let text = texts.get(key);
  if (text === undefined) {
    const quote = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
    let parameter = 0;
    const tuple = () => `(${columns.map(() => (kind === 'postgres' ? `$${++parameter}` : '?')).join(',')})`;
    text = `insert into ${quote(table)} (${columns.map(quote).join(',')}) values ${rows.map(tuple).join(',')}`;
    texts.set(key, text);
  }
  const parameters: unknown[] = new Array(rows.length * columns.length);
  let at = 0;
  for (const row of rows) for (const column of columns) parameters[at++] = row[column];
  await db.executeQuery(CompiledQuery.raw(text, parameters));
}
