import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseKind } from '../config.js';
import { isUniqueViolation } from './dialect.js';
import { insertRows, isJsonScalar, jsonInsertStatement } from './row-insert.js';
import type { DB } from './schema.js';

type Columns<T extends keyof DB> = readonly (keyof DB[T] & string)[];
type Row<T extends keyof DB> = { [C in keyof DB[T] & string]?: unknown };

type Write =
  | { kind: 'insert'; table: string; columns: readonly string[]; rows: readonly object[]; duplicate?: () => Error }
  | { kind: 'update'; table: string; key: string; columns: readonly string[]; row: Record<string, unknown> };

/** SQL texts of combined writes, by their parts' shapes. */
const texts = new Map<string, string>();

const quote = (kind: DatabaseKind, name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);

/**
 * The writes of one transaction's step, gathered and then sent at once: on PostgreSQL one
 * statement (each write a data-modifying `WITH` part reading its rows from one JSON parameter
 * with `json_populate_recordset`, so the statement text depends only on the parts' tables and
 * columns), one round trip however many tables it touches; on SQLite and MariaDB the writes one
 * after another in the order given (multi-row inserts, `row-insert.ts`). Either way all of them or
 * none: the caller's transaction rolls back on a failure. A write that must not meet a row with
 * its key (an STP nonce) names the error that replaces the unique violation.
 *
 * PostgreSQL runs the parts of one statement on one snapshot: no part may read what another
 * writes, and no table may be written by two parts.
 */
export class WriteSet {
  private readonly writes: Write[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly kind: DatabaseKind,
  ) {}

  /** Rows to insert (every row has every column); `duplicate`: the error when one's key exists. */
  insert<T extends keyof DB & string>(
    table: T,
    columns: Columns<T>,
    rows: readonly Row<T>[],
    options: { duplicate?: () => Error } = {},
  ): this {
    if (rows.length > 0) this.writes.push({ kind: 'insert', table, columns, rows, ...options });
    return this;
  }

  /** Sets `columns` of the row whose `key` column equals `row[key]`. */
  update<T extends keyof DB & string>(table: T, key: keyof DB[T] & string, columns: Columns<T>, row: Row<T>): this {
    this.writes.push({ kind: 'update', table, key, columns, row });
    return this;
  }

  /** Sends the writes gathered (then none are left). */
  async flush(): Promise<void> {
    const writes = this.writes.splice(0);
    if (writes.length === 0) return;
    if (this.kind === 'postgres' && writes.every(carriedAsJson)) {
      await this.combined(writes);
      return;
    }
    for (const write of writes) {
      if (write.kind === 'update') {
        const placeholder = (index: number) => (this.kind === 'postgres' ? `$${index}` : '?');
        const set = write.columns.map((column, index) => `${quote(this.kind, column)} = ${placeholder(index + 1)}`);
        const where = `${quote(this.kind, write.key)} = ${placeholder(write.columns.length + 1)}`;
        const values = [...write.columns.map((column) => write.row[column]), write.row[write.key]];
        await this.db.executeQuery(
          CompiledQuery.raw(`update ${quote(this.kind, write.table)} set ${set.join(', ')} where ${where}`, values),
        );
        continue;
      }
      try {
        await insertRows(this.db, this.kind, write.table as keyof DB & string, write.columns as never, write.rows as never);
      } catch (error) {
        if (write.duplicate && isUniqueViolation(error)) throw write.duplicate();
        throw error;
      }
    }
  }

  private async combined(writes: Write[]): Promise<void> {
    const key = writes
      .map((write) =>
        write.kind === 'insert'
          ? `i|${write.table}|${write.columns.join(',')}`
          : `u|${write.table}|${write.key}|${write.columns.join(',')}`,
      )
      .join(';');
    let text = texts.get(key);
    if (text === undefined) {
      const statements = writes.map((write, index) => jsonStatement(write, index + 1));
      const last = statements.pop()!;
      text =
        statements.length === 0
          ? last
          : `with ${statements.map((statement, index) => `w${index} as (${statement})`).join(', ')} ${last}`;
      texts.set(key, text);
    }
    const parameters = writes.map((write) => JSON.stringify(write.kind === 'insert' ? write.rows : write.row));
    try {
      await this.db.executeQuery(CompiledQuery.raw(text, parameters));
    } catch (error) {
      if (isUniqueViolation(error)) {
        const table = (error as { table?: string }).table;
        const refused = writes.find((write) => write.kind === 'insert' && write.table === table && write.duplicate);
        if (refused?.kind === 'insert' && refused.duplicate) throw refused.duplicate();
      }
      throw error;
    }
  }
}

function carriedAsJson(write: Write): boolean {
  if (write.kind === 'update')
    return write.columns.every((column) => isJsonScalar(write.row[column])) && isJsonScalar(write.row[write.key]);
  return write.rows.every((row) => write.columns.every((column) => isJsonScalar((row as Record<string, unknown>)[column])));
}

/** One write as a PostgreSQL statement reading its rows (its row) from parameter `$index`. */
function jsonStatement(write: Write, index: number): string {
  if (write.kind === 'insert') return jsonInsertStatement(write.table, write.columns, index);
  const table = quote('postgres', write.table);
  const set = write.columns.map((column) => `${quote('postgres', column)} = j.${quote('postgres', column)}`).join(', ');
  const keyColumn = quote('postgres', write.key);
  return `update ${table} as t set ${set} from json_populate_record(null::${table}, $${index}::json) as j where t.${keyColumn} = j.${keyColumn}`;
}
