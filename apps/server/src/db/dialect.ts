import {
  type CreateTableBuilder,
  FromNode,
  type Insertable,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  RawNode,
  type RawBuilder,
  SelectQueryNode,
  TableNode,
  type UnknownRow,
  type SelectQueryBuilder,
  type UpdateObject,
  sql,
} from 'kysely';
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
  /**
   * Inserts one row into a table with a generated `id` and answers that id, or undefined (and
   * no error, so a surrounding transaction goes on) when the row would break a unique key.
   */
  insertIdUnlessDuplicate<T extends TablesWithId>(
    db: Kysely<DB>,
    table: T,
    values: Insertable<DB[T]>,
  ): Promise<number | undefined>;
  /** Adds `FOR UPDATE` where the database has row locks (SQLite serialises writers instead). */
  forUpdate<QB extends { forUpdate(): QB }>(query: QB): QB;
  /**
   * A shared row lock until the transaction ends, where the database has row locks: `FOR SHARE`
   * (PostgreSQL), `LOCK IN SHARE MODE` (MariaDB, which has no `FOR SHARE`). It waits for, and
   * holds off, a writer of the rows (`FOR UPDATE`, `UPDATE`, `DELETE`) but not other shared locks.
   */
  forShare<QB extends { forShare(): QB; modifyEnd(modifier: RawBuilder<unknown>): QB }>(query: QB): QB;
  /**
   * Leases jobs: applies `changes` to the jobs `candidates` picks (ordered and limited by it) and
   * answers their ids. Callers racing for the same rows never get the same row: PostgreSQL and
   * MariaDB lock them with `FOR UPDATE SKIP LOCKED` in a transaction (a row another caller holds
   * is skipped, not waited for), SQLite runs one `UPDATE … WHERE id IN (SELECT …)`, which it
   * runs alone among writers.
   */
  claimJobs(
    db: Kysely<DB>,
    candidates: (db: Kysely<DB>) => SelectQueryBuilder<DB, 'jobs', { id: number }>,
    changes: UpdateObject<DB, 'jobs'>,
  ): Promise<number[]>;
}

export type TablesWithId = 'users' | 'user_groups' | 'audit_events' | 'jobs';

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
    async insertIdUnlessDuplicate(db, table, values) {
      if (kind === 'mysql') {
        // A no-op update on a duplicate: no error, and MariaDB reports insert id 0. InnoDB can
        // answer the insert with a deadlock (seen: one instance enqueueing its start jobs while
        // another's runner claimed jobs): on its own the statement is its whole transaction and
        // is tried again; inside a caller's transaction, which the deadlock rolled back whole,
        // the error goes to the caller.
        const insert = async () => {
          const result = await db
            .insertInto(table)
            .values(values as never)
            .onDuplicateKeyUpdate({ id: sql.ref('id') } as never)
            .executeTakeFirstOrThrow();
          return Number(result.insertId) || undefined;
        };
        return db.isTransaction ? insert() : retryOnDeadlock(insert);
      }
      const row = await db
        .insertInto(table)
        .values(values as never)
        .onConflict((conflict) => conflict.doNothing())
        .returning(sql<number>`id`.as('id'))
        .executeTakeFirst();
      return row ? Number(row.id) : undefined;
    },
    forUpdate(query) {
      return kind === 'sqlite' ? query : query.forUpdate();
    },
    forShare(query) {
      if (kind === 'mysql') return query.modifyEnd(sql`lock in share mode`);
      return kind === 'postgres' ? query.forShare() : query;
    },
    async claimJobs(db, candidates, changes) {
      if (kind === 'sqlite') {
        const rows = await db.updateTable('jobs').set(changes).where('id', 'in', candidates(db)).returning('id').execute();
        return rows.map((row) => Number(row.id));
      }
      // READ COMMITTED, as the outbox's claim: InnoDB takes no gap locks for the search, so a claim
      // does not hold back (or deadlock with) another process inserting jobs; a deadlock all the
      // same rolled the claim back whole and is tried again
      return retryOnDeadlock(() =>
        db
          .transaction()
          .setIsolationLevel('read committed')
          .execute(async (trx) => {
            const picked = await candidates(trx).forUpdate().skipLocked().execute();
            const ids = picked.map((row) => Number(row.id));
            if (ids.length > 0) await trx.updateTable('jobs').set(changes).where('id', 'in', ids).execute();
            return ids;
          }),
      );
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

/**
 * Drops an index if it exists, spelled as each database wants it: MariaDB/MySQL name the table the
 * index is on (`drop index … on t`), PostgreSQL and SQLite must not (their index names are unique
 * in the schema).
 */
export async function dropIndexIfExists(db: Kysely<unknown>, kind: DatabaseKind, index: string, table: string): Promise<void> {
  const drop = db.schema.dropIndex(index).ifExists();
  await (kind === 'mysql' ? drop.on(table) : drop).execute();
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
}

/** The database rolled the transaction back to break a deadlock: trying it again is safe. */
export function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as DriverError;
  return code === '40P01' || code === 'ER_LOCK_DEADLOCK' || errno === 1213;
}

/**
 * Runs `work` (a whole transaction, or one statement outside any) again when the database broke
 * a deadlock by rolling it back, up to `attempts` times in all.
 */
export function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  return retryWhile(isDeadlock, work, attempts);
}

/**
 * Runs a whole transaction again when a concurrent one wrote the same row first (a unique
 * violation) or the database broke a deadlock, up to `attempts` times in all: the next attempt
 * sees what the other committed.
 */
export function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  return retryWhile((error) => isUniqueViolation(error) || isDeadlock(error), work, attempts);
}

async function retryWhile<T>(retryable: (error: unknown) => boolean, work: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!retryable(error) || attempt >= attempts) throw error;
    }
  }
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

/** An index of one table, by name. */
export interface TableIndex {
  table: string;
  name: string;
}

/**
 * MariaDB's `FORCE INDEX`: the query's own table (its FROM, not a subquery's) is read through
 * `index`. MariaDB's syntax, for MariaDB only (SQLite's and PostgreSQL's planners chose these
 * indexes unasked); Kysely has no index hint, so this plugin writes the table of the query's FROM
 * as `` `table` force index (`index`) ``.
 */
export class ForceIndex implements KyselyPlugin {
  constructor(private readonly index: TableIndex) {
    // written into the statement as they are: names from the code, never from a request
    if (!/^[a-z_][a-z0-9_]*$/.test(index.table) || !/^[a-z_][a-z0-9_]*$/.test(index.name))
      throw new Error(`not a table and index name: ${index.table}, ${index.name}`);
  }

  transformQuery(args: PluginTransformQueryArgs): PluginTransformQueryArgs['node'] {
    const { node } = args;
    if (!SelectQueryNode.is(node) || !node.from) return node;
    const { table, name } = this.index;
    const froms = node.from.froms.map((from) =>
      TableNode.is(from) && !from.table.schema && from.table.identifier.name === table
        ? RawNode.createWithSql(`\`${table}\` force index (\`${name}\`)`)
        : from,
    );
    return { ...node, from: FromNode.create(froms) };
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
