import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import { dropIndexIfExists, withIdColumn } from '../dialect.js';

/**
 * What changes the order or the membership of a paged list, per table: inserts, deletes, and
 * updates of these columns (filters, sort keys, visibility). Every such write adds a row to
 * `list_changes` in the writer's own transaction (triggers, so no write path can forget), and
 * `db/anchored-paging.ts` compares the sum of a list's change weights with the one its cached
 * page anchors were built at (docs/performance.md#lists-at-scale).
 */
export const listTables = {
  orders: ['archived', 'company_name', 'dsi_id', 'user_id', 'created_at'],
  authorizations: ['archived', 'company_name', 'dsi_id', 'user_id', 'order_id', 'created_at'],
  order_groups: ['order_id', 'group_id'],
  user_group_members: ['user_id', 'group_id'],
  users: ['username_key', 'first_name', 'last_name', 'email'],
  devices: ['registration_state', 'name', 'serial_number', 'created_at'],
  packages: ['design_name'],
} as const;

export type ListTable = keyof typeof listTables;

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await createListChanges(db, kind);

  // the authorization list sorted by order (sortBy orderId)
  await db.schema
    .createIndex('authorizations_archived_order_idx')
    .on('authorizations')
    .columns(['archived', 'order_id', 'id'])
    .execute();

  await createListChangeTriggers(db, kind);
}

/** The table of list changes (033 replaced it with kept counts; its `down` makes it again). */
export async function createListChanges(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  await withIdColumn(kind, db.schema.createTable('list_changes'))
    .addColumn('name', 'varchar(32)', (c) => c.notNull())
    .addColumn('weight', kind === 'sqlite' ? 'integer' : 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('list_changes_name_idx').on('list_changes').columns(['name', 'weight']).execute();
}

/** The triggers that add a row to `list_changes` for every write that changes a list. */
export async function createListChangeTriggers(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind === 'postgres') {
    // statement-level: one row per writing statement, however many rows it touched
    await sql`create function list_change() returns trigger language plpgsql as $$
      begin insert into list_changes (name, weight) values (TG_ARGV[0], 1); return null; end $$`.execute(db);
  }
  for (const [table, columns] of Object.entries(listTables)) {
    for (const statement of triggers(kind, table, columns)) await sql.raw(statement).execute(db);
  }
}

function triggers(kind: DatabaseKind, table: string, columns: readonly string[]): string[] {
  const insert = `insert into list_changes (name, weight) values ('${table}', 1)`;
  if (kind === 'postgres') {
    return [
      `create trigger ${table}_list_change_write after insert or delete on ${table} for each statement execute function list_change('${table}')`,
      `create trigger ${table}_list_change_update after update of ${columns.join(', ')} on ${table} for each statement execute function list_change('${table}')`,
    ];
  }
  if (kind === 'sqlite') {
    return [
      `create trigger ${table}_list_change_insert after insert on ${table} begin ${insert}; end`,
      `create trigger ${table}_list_change_delete after delete on ${table} begin ${insert}; end`,
      `create trigger ${table}_list_change_update after update of ${columns.join(', ')} on ${table} begin ${insert}; end`,
    ];
  }
  const unchanged = columns.map((column) => `old.${column} <=> new.${column}`).join(' and ');
  return [
    `create trigger ${table}_list_change_insert after insert on ${table} for each row ${insert}`,
    `create trigger ${table}_list_change_delete after delete on ${table} for each row ${insert}`,
    `create trigger ${table}_list_change_update after update on ${table} for each row begin if not (${unchanged}) then ${insert}; end if; end`,
  ];
}

export async function down(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  for (const table of Object.keys(listTables)) {
    for (const suffix of ['write', 'insert', 'delete', 'update']) {
      await sql
        .raw(`drop trigger if exists ${table}_list_change_${suffix}${kind === 'postgres' ? ` on ${table}` : ''}`)
        .execute(db);
    }
  }
  if (kind === 'postgres') await sql`drop function if exists list_change()`.execute(db);
  await db.schema.dropTable('list_changes').ifExists().execute();
  await dropIndexIfExists(db, kind, 'authorizations_archived_order_idx', 'authorizations');
}
