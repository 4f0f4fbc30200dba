import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseKind } from '../config.js';
import type { DB } from './schema.js';

/** SQL texts written so far, by database, table, columns and row count. */
const texts = new Map<string, string>();

/**
 * Inserts `rows` into `table` in one statement (PostgreSQL: {@link insertJsonRows}; otherwise a
 * multi-row insert) whose SQL text is written here instead of
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
  if (kind === 'postgres' && rows.every((row) => columns.every((column) => isJsonScalar(row[column])))) {
    await insertJsonRows(db, table, columns, rows);
    return;
  }
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

/** A value JSON carries as PostgreSQL reads it back into a column (text, a number, null). */
export function isJsonScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * PostgreSQL: an insert of the rows given as one JSON parameter (`$index`), read into the table's
 * row type by `json_populate_recordset` — one statement text per table and columns whatever the
 * row count, one parameter to bind instead of one per value, and no planning of a long `VALUES`
 * list (about 1.3× the rows per second of the multi-row insert for 500 events and their audit
 * records, docs/performance.md). Keys that are not among `columns` are ignored.
 */
export function jsonInsertStatement(table: string, columns: readonly string[], index: number): string {
  const list = columns.map((name) => `"${name}"`).join(',');
  return `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $${index}::json)`;
}

async function insertJsonRows(db: Kysely<DB>, table: string, columns: readonly string[], rows: readonly object[]): Promise<void> {
  const key = `json|${table}|${columns.join(',')}`;
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = jsonInsertStatement(table, columns, 1)));
  await db.executeQuery(CompiledQuery.raw(text, [JSON.stringify(rows)]));
}
