import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/database.js';
import type { DB } from '../src/db/schema.js';
import { createMigratedDatabase, createScratchDatabase } from './helpers/database-servers.js';
import { seededAuditRow } from './helpers/seeded-rows.js';

// The suites copy their databases from a template the global set-up migrated once
// (helpers/database-servers.ts); a copy must be exactly what running the migrations makes:
// the same tables, columns, indexes, keys, triggers and rows.

type Rows = Record<string, unknown>[];
const rows = async (db: Kysely<DB>, query: ReturnType<typeof sql.raw>): Promise<Rows> => (await query.execute(db)).rows as Rows;

/** Everything the migrations make, read back in a stable order. */
async function schemaOf(database: Database, kind: string): Promise<Record<string, unknown>> {
  const { db } = database;
  let tables: string[];
  const shape: Record<string, unknown> = {};
  if (kind === 'sqlite') {
    shape.objects = await rows(db, sql.raw(`select type, name, tbl_name, sql from sqlite_master order by type, name`));
    tables = (await rows(db, sql.raw(`select name from sqlite_master where type = 'table' order by name`))).map((r) =>
      String(r.name),
    );
  } else if (kind === 'postgres') {
    shape.columns = await rows(
      db,
      sql.raw(
        `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
      ),
    );
    shape.indexes = await rows(
      db,
      sql.raw(`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`),
    );
    shape.constraints = await rows(
      db,
      sql.raw(
        `select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
      ),
    );
    shape.triggers = await rows(
      db,
      sql.raw(
        `select tgrelid::regclass::text as tbl, tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by 1, 2`,
      ),
    );
    shape.functions = await rows(
      db,
      sql.raw(
        `select proname, pg_get_functiondef(oid) as def from pg_proc where pronamespace = 'public'::regnamespace order by 1`,
      ),
    );
    tables = (await rows(db, sql.raw(`select tablename from pg_tables where schemaname = 'public' order by 1`))).map((r) =>
      String(r.tablename),
    );
  } else {
    tables = (
      await rows(db, sql.raw(`select table_name as t from information_schema.tables where table_schema = database() order by 1`))
    ).map((r) => String(r.t));
    const created: Rows = [];
    for (const table of tables) created.push(...(await rows(db, sql.raw(`show create table \`${table}\``))));
    shape.tables = created;
    shape.triggers = await rows(
      db,
      sql.raw(
        `select trigger_name, event_manipulation, event_object_table, action_timing, action_statement from information_schema.triggers where trigger_schema = database() order by 1`,
      ),
    );
  }
  const content: Record<string, Rows> = {};
  for (const table of tables)
    content[table] = await rows(db, sql.raw(`select * from ${kind === 'mysql' ? `\`${table}\`` : `"${table}"`}`));
  // rows the migrations write carry when they ran: the template's are older by the time of a run
  for (const [table, tableRows] of Object.entries(content)) {
    content[table] = tableRows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([column, value]) => [column, /(_at|timestamp)$/.test(column) ? 'when migrated' : value]),
      ),
    );
  }
  shape.content = content;
  shape.tableNames = tables;
  return shape;
}

describe.each(inject('databases'))('databases copied from the run template [%s]', (kind) => {
  let dataDir: string;
  let migrated: Database;
  let copied: Database;
  const drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-templates-test-'));
    if (kind === 'sqlite') {
      migrated = createDatabase({ kind, file: path.join(dataDir, 'migrated.db') });
    } else {
      const scratch = await createScratchDatabase(kind);
      drops.push(scratch.drop);
      migrated = createDatabase({ kind, url: scratch.url });
    }
    await migrated.migrate();
    const copy = await createMigratedDatabase(kind, inject('databaseTemplates'), path.join(dataDir, 'copied.db'));
    drops.push(copy.drop);
    copied = createDatabase(kind === 'sqlite' ? { kind, file: path.join(dataDir, 'copied.db') } : { kind, url: copy.url });
  });

  afterAll(async () => {
    await migrated?.close();
    await copied?.close();
    for (const drop of drops) await drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('holds exactly what running the migrations makes', async () => {
    const expected = await schemaOf(migrated, kind);
    expect((expected.tableNames as string[]).length).toBeGreaterThan(50);
    expect(await schemaOf(copied, kind)).toEqual(expected);
  });

  it('has nothing left to migrate, and its triggers count what is written', async () => {
    await copied.migrate();
    const total = async () =>
      Number(
        (
          await copied.db
            .selectFrom('list_counts')
            .select((eb) => eb.fn.sum<number | string>('total').as('total'))
            .where('name', '=', 'audit_events')
            .where('list_key', '=', '')
            .executeTakeFirstOrThrow()
        ).total,
      );
    const before = await total();
    await copied.db.insertInto('audit_events').values(seededAuditRow(1, Date.now())).execute();
    expect(await total()).toBe(before + 1);
  });
});
