import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists } from '../dialect.js';
import { createListChangeTriggers, createListChanges } from './030-list-changes.js';

/**
 * Paged lists keep their sizes up to date instead of counting their rows (docs/performance.md,
 * "Lists at scale"). Triggers (so no write path can forget) keep `list_counts` in the writer's own
 * transaction, for every write that changes a listed table:
 *
 * - the row of key `''`: `total` the table's row count, `weight` the number of writing statements
 *   (insert, delete, or update of a column a list filters or sorts on): the sum of a table's weights
 *   is its lists' generation, which moves with every committed write;
 * - per counted key of the table (`countedKeys`: a short name and the columns a list filters on),
 *   one row per key value: `total` the number of rows holding that value.
 *
 * Every count is split into shards, one per database connection that wrote it (its backend pid on
 * PostgreSQL, its connection id on MariaDB; SQLite has one writer and one shard, 0): a writer only
 * ever updates its own connection's rows, so writers on different rows never wait for each other,
 * and a count is the sum of its few shards. `mergeEndedShards` (db/anchored-paging.ts) moves the
 * shards of connections that have ended into shard 0.
 *
 * This migration replaces migration 030's triggers and change rows, and adds the trace, audit,
 * part and build lists and `user_groups` (deleting a group takes its members and orders with it:
 * MariaDB runs no trigger for rows a foreign key cascades to).
 */
export const listTables = {
  orders: ['archived', 'company_name', 'dsi_id', 'user_id', 'created_at'],
  authorizations: ['archived', 'company_name', 'dsi_id', 'user_id', 'order_id', 'created_at'],
  order_groups: ['order_id', 'group_id'],
  user_group_members: ['user_id', 'group_id'],
  user_groups: ['id'],
  users: ['username_key', 'first_name', 'last_name', 'email'],
  devices: ['registration_state', 'name', 'serial_number', 'created_at'],
  packages: ['design_name'],
  trace_events: ['dsi_id', 'received_at'],
  audit_events: ['event_type', 'actor', 'subject', 'created_at'],
  parts: ['dsi_id', 'serial_number', 'created_at'],
  builds: ['dsi_id', 'created_at'],
} as const;

export type ListTable = keyof typeof listTables;

/**
 * Per table, the filters whose list sizes are kept: key name → its columns, in key order. Each key
 * costs every write of its table one more row to update: the busy tables (authorizations, the
 * audit trail, events, builds, parts) keep only the filters the console uses most, and a list with
 * other filters counts its rows once per generation.
 */
export const countedKeys = {
  orders: { a: ['archived'], ac: ['archived', 'company_name'], au: ['archived', 'user_id'], ad: ['archived', 'dsi_id'] },
  authorizations: { a: ['archived'], ao: ['archived', 'order_id'] },
  order_groups: {},
  user_group_members: {},
  user_groups: {},
  users: {},
  devices: {},
  packages: {},
  trace_events: { d: ['dsi_id'] },
  audit_events: {},
  parts: { d: ['dsi_id'] },
  builds: { d: ['dsi_id'] },
} as const satisfies Record<ListTable, Record<string, readonly string[]>>;

/** The longest key value: a key name, its columns' values and separators. */
export const LIST_KEY_LENGTH = 300;

type Keys = Record<string, readonly string[]>;

/** The SQL of a key's value for the row `row` (`new.`, `old.`, or '' for a table's own columns). */
function keyValue(kind: DatabaseKind, name: string, columns: readonly string[], row: string): string {
  const values = columns.map((column) => (kind === 'postgres' ? `${row}${column}` : `coalesce(${row}${column}, '')`));
  const parts = [`'${name}:'`, ...values.flatMap((value, i) => (i > 0 ? [`'|'`, value] : [value]))];
  // PostgreSQL's concat skips NULLs and writes integers as text, MariaDB's needs no NULL
  return kind === 'sqlite' ? parts.join(' || ') : `concat(${parts.join(', ')})`;
}

/** The writer's shard: its connection. */
const shardOf: Record<DatabaseKind, string> = { postgres: 'pg_backend_pid()', mysql: 'connection_id()', sqlite: '0' };

const columnsList = 'insert into list_counts (name, list_key, shard, total, weight)';

/** Adds to the writer's shard of each key (rows: its VALUES or SELECT). */
function addTo(kind: DatabaseKind, rows: string): string {
  if (kind === 'mysql')
    return `${columnsList} ${rows} on duplicate key update total = total + values(total), weight = weight + values(weight)`;
  const target = kind === 'postgres' ? 'list_counts.' : '';
  return `${columnsList} ${rows} on conflict (name, list_key, shard) do update
    set total = ${target}total + excluded.total, weight = ${target}weight + excluded.weight`;
}

/** PostgreSQL: statement triggers over the rows a statement added or removed, grouped by key. */
function postgresTriggers(table: string, columns: readonly string[], keys: Keys): string[] {
  const counted = (rows: string, sign: string) =>
    [
      `select '' as k, ${sign}count(*) as n, 1 as w from ${rows}`,
      ...Object.entries(keys).map(
        ([name, keyColumns]) =>
          `select ${keyValue('postgres', name, keyColumns, '')}, ${sign}count(*), 0 from ${rows} group by 1`,
      ),
    ].join(' union all ');
  const add = (rows: string, sign: string) =>
    addTo('postgres', `select '${table}', k, pg_backend_pid(), sum(n), sum(w) from (${counted(rows, sign)}) s group by k`);
  const statements = [
    `create function ${table}_list_rows_added() returns trigger language plpgsql as $$
      begin ${add('added_rows', '')}; return null; end $$`,
    `create function ${table}_list_rows_removed() returns trigger language plpgsql as $$
      begin ${add('removed_rows', '-')}; return null; end $$`,
    `create trigger ${table}_list_change_insert after insert on ${table} referencing new table as added_rows
      for each statement execute function ${table}_list_rows_added()`,
    `create trigger ${table}_list_change_delete after delete on ${table} referencing old table as removed_rows
      for each statement execute function ${table}_list_rows_removed()`,
    `create trigger ${table}_list_change_update after update of ${columns.join(', ')} on ${table}
      for each statement execute function list_change('${table}')`,
  ];
  const keyColumns = [...new Set(Object.values(keys).flat())];
  if (keyColumns.length > 0) {
    const moved = Object.entries(keys)
      .map(
        ([name, cols]) =>
          `select ${keyValue('postgres', name, cols, 'old.')} as k, -1 as d union all select ${keyValue('postgres', name, cols, 'new.')}, 1`,
      )
      .join(' union all ');
    statements.push(
      `create function ${table}_list_keys_moved() returns trigger language plpgsql as $$
        begin ${addTo('postgres', `select '${table}', k, pg_backend_pid(), sum(d), 0 from (${moved}) s group by k having sum(d) <> 0`)};
        return null; end $$`,
      `create trigger ${table}_list_key_update after update of ${keyColumns.join(', ')} on ${table} for each row
        when (${keyColumns.map((column) => `old.${column} is distinct from new.${column}`).join(' or ')})
        execute function ${table}_list_keys_moved()`,
    );
  }
  return statements;
}

/** SQLite and MariaDB: row triggers, each adding to its keys in one multi-row upsert. */
function rowTriggers(kind: 'sqlite' | 'mysql', table: string, columns: readonly string[], keys: Keys): string[] {
  const shard = shardOf[kind];
  const rows = (row: 'new.' | 'old.', delta: string) =>
    [
      `('${table}', '', ${shard}, ${delta}, 1)`,
      ...Object.entries(keys).map(([name, cols]) => `('${table}', ${keyValue(kind, name, cols, row)}, ${shard}, ${delta}, 0)`),
    ].join(', ');
  const unchanged = (cols: readonly string[]) =>
    cols.map((column) => (kind === 'mysql' ? `old.${column} <=> new.${column}` : `old.${column} is new.${column}`)).join(' and ');
  /** A key whose columns changed: one row fewer under the old value, one more under the new. */
  const moves = Object.entries(keys).map(([name, cols]) => ({
    unchanged: unchanged(cols),
    rows: `('${table}', ${keyValue(kind, name, cols, 'old.')}, ${shard}, -1, 0), ('${table}', ${keyValue(kind, name, cols, 'new.')}, ${shard}, 1, 0)`,
  }));
  const weighed = addTo(kind, `values ('${table}', '', ${shard}, 0, 1)`);
  if (kind === 'sqlite') {
    return [
      `create trigger ${table}_list_change_insert after insert on ${table} begin ${addTo(kind, `values ${rows('new.', '1')}`)}; end`,
      `create trigger ${table}_list_change_delete after delete on ${table} begin ${addTo(kind, `values ${rows('old.', '-1')}`)}; end`,
      `create trigger ${table}_list_change_update after update of ${columns.join(', ')} on ${table} begin
        ${weighed};
        ${moves.map((move) => `${addTo(kind, `select * from (values ${move.rows}) where not (${move.unchanged})`)};`).join('\n')}
      end`,
    ];
  }
  return [
    `create trigger ${table}_list_change_insert after insert on ${table} for each row ${addTo(kind, `values ${rows('new.', '1')}`)}`,
    `create trigger ${table}_list_change_delete after delete on ${table} for each row ${addTo(kind, `values ${rows('old.', '-1')}`)}`,
    `create trigger ${table}_list_change_update after update on ${table} for each row begin
      if not (${unchanged(columns)}) then ${weighed}; end if;
      ${moves.map((move) => `if not (${move.unchanged}) then ${addTo(kind, `values ${move.rows}`)}; end if;`).join('\n')}
    end`,
  ];
}

/** 030's triggers and this migration's, by name. */
function dropTriggers(kind: DatabaseKind, table: string): string[] {
  return ['change_write', 'change_insert', 'change_delete', 'change_update', 'key_update'].map(
    (suffix) => `drop trigger if exists ${table}_list_${suffix}${kind === 'postgres' ? ` on ${table}` : ''}`,
  );
}

/** SQLite: the indexes 033 makes leave out the rows whose first column is null (see `up`). */
const sqlitePartialIndexes: [index: string, table: string, columns: string[]][] = [
  ['trace_events_authorization_idx', 'trace_events', ['authorization_id', 'job_id']],
  ['trace_events_dsi_received_idx', 'trace_events', ['dsi_id', 'received_at', 'event_id']],
  ['parts_serial_idx', 'parts', ['serial_number']],
  ['audit_events_actor_idx', 'audit_events', ['actor', 'created_at', 'id']],
  ['audit_events_subject_created_idx', 'audit_events', ['subject', 'created_at', 'id']],
];

/** Runs one statement; a failure names it. */
async function run(db: Kysely<unknown>, statement: string): Promise<void> {
  try {
    await sql.raw(statement).execute(db);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} in: ${statement}`, { cause: error });
  }
}

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const table of Object.keys(listTables)) {
    for (const statement of dropTriggers(kind, table)) await run(db, statement);
  }

  await db.schema
    .createTable('list_counts')
    .addColumn('name', 'varchar(32)', (c) => c.notNull())
    .addColumn('list_key', `varchar(${LIST_KEY_LENGTH})`, (c) => c.notNull())
    .addColumn('shard', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('weight', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_counts_pk', ['name', 'list_key', 'shard'])
    .execute();
  // in shard 0: each table's size and generation so far (030's change rows), each counted key's sizes
  for (const [table, keys] of Object.entries(countedKeys)) {
    await run(
      db,
      `insert into list_counts (name, list_key, shard, total, weight)
        select '${table}', '', 0, (select count(*) from ${table}), coalesce((select sum(weight) from list_changes where name = '${table}'), 0)`,
    );
    for (const [name, columns] of Object.entries(keys as Keys)) {
      const value = keyValue(kind, name, columns, '');
      await run(
        db,
        `insert into list_counts (name, list_key, shard, total, weight) select '${table}', k, 0, count(*), 0 from (select ${value} as k from ${table}) s group by k`,
      );
    }
  }
  await db.schema.dropTable('list_changes').execute();

  if (kind === 'postgres') {
    // 030's function, now for an update's generation (no row added or removed)
    await run(
      db,
      `create or replace function list_change() returns trigger language plpgsql as $$
      begin ${addTo('postgres', `values (TG_ARGV[0], '', pg_backend_pid(), 0, 1)`)}; return null; end $$`,
    );
  }
  for (const [table, columns] of Object.entries(listTables)) {
    const keys = countedKeys[table as ListTable] as Keys;
    const statements = kind === 'postgres' ? postgresTriggers(table, columns, keys) : rowTriggers(kind, table, columns, keys);
    for (const statement of statements) await run(db, statement);
  }

  // the audit list by kind and by subject pages in (created_at, id) like the whole list: with the id
  // in the index, PostgreSQL seeks from an anchor and reads a page in index order
  await db.schema
    .createIndex('audit_events_type_created_idx')
    .on('audit_events')
    .columns(['event_type', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_subject_created_idx')
    .on('audit_events')
    .columns(['subject', 'created_at', 'id'])
    .execute();
  for (const index of ['audit_events_type_idx', 'audit_events_subject_idx'])
    await dropIndexIfExists(db, kind, index, 'audit_events');
  if (kind === 'sqlite') {
    // SQLite's statistics count the rows without a value (a machine's idle events have no licence,
    // a system record no actor) as one value shared by all of them, and then judge an index on the
    // column useless for `= ?` and read the whole table (trace_events of one licence and job: 23 ms
    // instead of 0.1 at 100,000 events): these indexes leave those rows out
    for (const [index, table, columns] of sqlitePartialIndexes) {
      await run(db, `drop index if exists ${index}`);
      await run(db, `create index ${index} on ${table} (${columns.join(', ')}) where ${columns[0]} is not null`);
    }
  }

  // the design package list in case-insensitive name order (MariaDB's collation already is: its
  // packages_name_idx serves), the user list in name order (the unique name's index, with the id
  // a page seeks from an anchor with), and the machine list of one registration state newest first
  if (kind !== 'mysql') await run(db, 'create index packages_name_key_idx on packages (lower(design_name), id)');
  await db.schema.createIndex('users_name_key_idx').on('users').columns(['username_key', 'id']).execute();
  await db.schema
    .createIndex('devices_state_created_idx')
    .on('devices')
    .columns(['registration_state', 'created_at', 'id'])
    .execute();
  await dropIndexIfExists(db, kind, 'devices_state_idx', 'devices');

  // the authorization list by order: 010 made this index already (authorizations_archived_id_idx)
  await dropIndexIfExists(db, kind, 'authorizations_archived_order_idx', 'authorizations');
}

/**
 * Back to 030's change rows: the kept counts go, each list's generation so far is carried into
 * `list_changes` (one row per list that changed), 030's triggers count the changes again, and the
 * indexes are those 033 found.
 */
export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const table of Object.keys(listTables)) {
    for (const statement of dropTriggers(kind, table)) await run(db, statement);
    if (kind === 'postgres') {
      for (const fn of ['list_rows_added', 'list_rows_removed', 'list_keys_moved'])
        await run(db, `drop function if exists ${table}_${fn}()`);
    }
  }
  if (kind === 'postgres') await run(db, 'drop function if exists list_change()');
  await createListChanges(db, kind);
  const { rows: generations } = await sql<{ name: string; weight: number | string }>`
    select name, sum(weight) as weight from list_counts where list_key = '' group by name having sum(weight) > 0`.execute(db);
  // (an insert of no rows would still start SQLite's counter of the new table)
  if (generations.length > 0)
    await db
      .insertInto('list_changes' as never)
      .values(generations.map(({ name, weight }) => ({ name, weight: Number(weight) })) as never)
      .execute();
  await createListChangeTriggers(db, kind);
  await db.schema.dropTable('list_counts').execute();

  await dropIndexIfExists(db, kind, 'audit_events_type_created_idx', 'audit_events');
  await dropIndexIfExists(db, kind, 'audit_events_subject_created_idx', 'audit_events');
  await db.schema.createIndex('audit_events_type_idx').on('audit_events').columns(['event_type', 'created_at']).execute();
  await db.schema.createIndex('audit_events_subject_idx').on('audit_events').columns(['subject', 'created_at']).execute();
  if (kind === 'sqlite') {
    // the indexes as 013 made them, with every row (audit_events_subject_created_idx, 033's own, went above)
    for (const [index, table, columns] of sqlitePartialIndexes.filter(
      ([index]) => index !== 'audit_events_subject_created_idx',
    )) {
      await run(db, `drop index if exists ${index}`);
      await db.schema.createIndex(index).on(table).columns(columns).execute();
    }
  }
  if (kind !== 'mysql') await run(db, 'drop index if exists packages_name_key_idx');
  await dropIndexIfExists(db, kind, 'users_name_key_idx', 'users');
  await dropIndexIfExists(db, kind, 'devices_state_created_idx', 'devices');
  await db.schema.createIndex('devices_state_idx').on('devices').columns(['registration_state', 'created_at']).execute();
  await db.schema
    .createIndex('authorizations_archived_order_idx')
    .on('authorizations')
    .columns(['archived', 'order_id', 'id'])
    .execute();
}
