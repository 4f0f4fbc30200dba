import { type CreateTableBuilder, type Insertable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { DatabaseKind } from '../config.js';
import type { DB } from './schema.js';

/**
 * The only place that knows how the three databases differ. Everything else writes one query
 * for all of them.
 */
export interface Dialect {
  kind: DatabaseKind;
  /** Inserts one row into a table with a generated `id` and answers that id. */
  insertId<T extends TablesWithId>(db: Kysely<DB>, table: T, values: Insertable<DB[T]>): Promise<number>;
  /** Adds `FOR UPDATE` where the database has row locks (SQLite serialises writers instead). */
  forUpdate<QB extends { forUpdate(): QB }>(query: QB): QB;
}

export type TablesWithId = 'users' | 'user_groups' | 'audit_events';

export function createDialect(kind: DatabaseKind): Dialect {
  return {
    kind,
    async insertId(db, table, values) {
      if (kind === 'postgres') {
        const row = await db
          .insertInto(table)
          .values(values as never)
          .returning(sql<number>`id`.as('id'))
          .executeTakeFirstOrThrow();
        return Number(row.id);
      }
      const result = await db
        .insertInto(table)
        .values(values as never)
        .executeTakeFirstOrThrow();
      return Number(result.insertId);
    },
    forUpdate(query) {
      return kind === 'sqlite' ? query : query.forUpdate();
    },
  };
}

/** An auto-increment primary key `id` column, spelled as each database wants it. */
export function withIdColumn<TB extends string>(
  kind: DatabaseKind,
  table: CreateTableBuilder<TB, never>,
): CreateTableBuilder<TB, 'id'> {
  return kind === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
}

/** A unique-constraint violation, whatever the driver calls it. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as DriverError;
  return (
    code === '23505' || // PostgreSQL
    code === 'ER_DUP_ENTRY' ||
    errno === 1062 || // MySQL / MariaDB
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/**
 * `lower(column) LIKE '%term%'`, with the term's own wildcards escaped. `!` is the escape
 * character because a backslash means different things in the three databases' literals.
 */
export function containsIgnoringCase(column: string, term: string): RawBuilder<boolean> {
  const pattern = `%${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`;
}
