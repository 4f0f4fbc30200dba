import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/database.js';
import { migrationProvider } from '../src/db/migrations/index.js';
import { StorageReferencesRepository } from '../src/jobs/storage-references.repository.js';
import { usernameKey } from '../src/modules/users/usernames.js';
import type { DB } from '../src/db/schema.js';
import { createMigratedDatabase, createScratchDatabase } from './helpers/database-servers.js';
import { seededAuditRow, seededBuildRow, seededPartRow } from './helpers/seeded-rows.js';

// The suites copy their databases from a template the global set-up migrated once
// (helpers/database-servers.ts); a copy must be exactly what running the migrations makes:
// the same tables, columns, indexes, keys, triggers and rows.

type Rows = Record<string, unknown>[];
const rows = async (db: Kysely<DB>, query: ReturnType<typeof sql.raw>): Promise<Rows> => (await query.execute(db)).rows as Rows;

/** A user row as the migrations' tables take it (no password), created `now`. */
const userRow = (username: string, now: string) => ({
  username,
  username_key: usernameKey(username),
  password_hash: null,
  first_name: 'F',
  last_name: 'L',
  email: 'f.l@example.com',
  company: null,
  role: 'USER',
  time_zone: 'UTC',
  language: 'en',
  use_sso: 0,
  created_at: now,
  updated_at: now,
});

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
        `select table_name, column_name, data_type, character_maximum_length, is_nullable, column_default from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
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
    for (const table of tables) {
      for (const row of await rows(db, sql.raw(`show create table \`${table}\``))) {
        // a table's indexes are listed in the order they were made, which means nothing: sorted
        const lines = String(row['Create Table']).split('\n');
        const keys = lines.filter((line) => /^ {2}(UNIQUE )?KEY /.test(line)).map((line) => line.replace(/,$/, ''));
        const rest = lines.filter((line) => !/^ {2}(UNIQUE )?KEY /.test(line));
        created.push({ ...row, 'Create Table': rest.join('\n'), keys: keys.sort() });
      }
    }
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

  // runs after the tests above: it takes the migrated database down and up again
  it('undoes the migrations one by one, and redoes them one by one to the same schema at every step', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    // shapes[i]: the schema with i migrations undone
    const shapes = [await schemaOf(migrated, kind)];
    for (;;) {
      const step = await migrator.migrateDown();
      expect(step.error).toBeUndefined();
      if (!step.results?.length) break;
      expect(step.results.map((result) => result.status)).toEqual(['Success']);
      shapes.push(await schemaOf(migrated, kind));
    }
    expect(shapes).toHaveLength((await migrator.getMigrations()).length + 1);
    const left = shapes.at(-1)!;
    // nothing of the migrations is left but Kysely's own bookkeeping (and SQLite's table of
    // AUTOINCREMENT counters, which SQLite keeps once made: its rows went with their tables)
    expect((left.tableNames as string[]).filter((table) => table !== 'sqlite_sequence')).toEqual([
      'kysely_migration',
      'kysely_migration_lock',
    ]);
    if (kind === 'sqlite') {
      expect((left.content as Record<string, Rows>).sqlite_sequence).toEqual([]);
      expect(
        (left.objects as Rows).filter((o) => !String(o.tbl_name).startsWith('kysely_migration') && o.name !== 'sqlite_sequence'),
      ).toEqual([]);
    }
    if (kind === 'postgres') {
      expect(left.triggers).toEqual([]);
      expect(left.functions).toEqual([]);
    }
    if (kind === 'mysql') expect(left.triggers).toEqual([]);

    // a step's `up` fails where its `down` left something behind, and its schema differs where the
    // `down` took away more or less than the `up` made
    for (let undone = shapes.length - 2; undone >= 0; undone -= 1) {
      const step = await migrator.migrateUp();
      expect(step.error).toBeUndefined();
      expect(await schemaOf(migrated, kind)).toEqual(shapes[undone]);
    }
  });

  it('takes the username keys back to lower case and forward to confusable skeletons', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    const now = new Date().toISOString();
    const user = (username: string) => userRow(username, now);
    await migrated.db
      .insertInto('users')
      .values([user('paypa1'), user('Mixed.Case')])
      .execute();
    const keys = async () =>
      (await migrated.db.selectFrom('users').select('username_key').orderBy('id').execute()).map((row) => row.username_key);
    expect(await keys()).toEqual(['paypal', 'rnixed.case']);
    expect((await migrator.migrateTo('011-jobs')).error).toBeUndefined();
    expect(await keys()).toEqual(['paypa1', 'mixed.case']);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await keys()).toEqual(['paypal', 'rnixed.case']);
  });

  it('gives the pictures of inspections recorded before migration 036 their rows, which the storage sweep keeps', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    expect((await migrator.migrateTo('035-username-order')).error).toBeUndefined();
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const build = seededBuildRow(1, base, { id: randomUUID(), dsi_id: randomUUID() }, randomUUID());
    const part = seededPartRow(1, base, build);
    await migrated.db.insertInto('builds').values(build).execute();
    await migrated.db.insertInto('parts').values(part).execute();
    const inspection = (pictures: string[]) => ({
      id: randomUUID(),
      part_id: part.id,
      build_id: build.id,
      result: 'passed' as const,
      reason: null,
      technician: 'Grace',
      notes: null,
      quality_values: '[]',
      pictures: JSON.stringify(
        pictures.map((key, index) => ({ key, fileName: `p${index}.png`, contentType: 'image/png', size: 1, sha256: 'x' })),
      ),
      event_id: randomUUID(),
      qms_state: 'MANUFACTURED' as const,
      created_by: 'admin',
      created_at: new Date(base).toISOString(),
    });
    const keys = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    const withTwo = inspection(keys.slice(0, 2));
    const withOne = inspection(keys.slice(2));
    await migrated.db
      .insertInto('quality_inspections')
      .values([withTwo, withOne, inspection([])])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const copied = await migrated.db
      .selectFrom('quality_inspection_pictures')
      .select(['inspection_id', 'position', 'storage_key'])
      .orderBy('storage_key')
      .execute();
    expect(copied).toEqual([
      { inspection_id: withTwo.id, position: 0, storage_key: keys[0] },
      { inspection_id: withTwo.id, position: 1, storage_key: keys[1] },
      { inspection_id: withOne.id, position: 0, storage_key: keys[2] },
    ]);
    expect([...(await new StorageReferencesRepository(migrated.db).referenced([...keys, 'd'.repeat(32)]))].sort()).toEqual(keys);
  });

  it('gives sessions opened before migration 037 their creation as login time, and no identity provider', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    expect((await migrator.migrateTo('036-stored-object-references')).error).toBeUndefined();
    const now = new Date().toISOString();
    await migrated.db.insertInto('users').values(userRow('before037', now)).execute();
    const { id: userId } = await migrated.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'before037')
      .executeTakeFirstOrThrow();
    await sql`insert into sessions (id, user_id, created_at, expires_at, revoked_at, escalated)
      values ('before-037', ${userId}, '2026-11-01T08:00:00.000Z', '2026-11-01T16:00:00.000Z', null, 0)`.execute(migrated.db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(
      await migrated.db
        .selectFrom('sessions')
        .select(['created_at', 'login_at', 'identity_provider_id'])
        .where('id', '=', 'before-037')
        .executeTakeFirstOrThrow(),
    ).toEqual({ created_at: '2026-11-01T08:00:00.000Z', login_at: '2026-11-01T08:00:00.000Z', identity_provider_id: null });
  });

  it('keeps external subjects that differ only in case or accents apart from migration 038 (MariaDB), and takes them back', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    const { id: userId } = await migrated.db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow();
    const link = (subject: string) =>
      migrated.db
        .insertInto('external_identities')
        .values({ issuer: 'https://idp.example', subject, user_id: userId, created_at: new Date().toISOString() })
        .execute();
    await link('case-subject');
    expect((await migrator.migrateTo('037-session-origin')).error).toBeUndefined();
    if (kind === 'mysql') {
      await expect(link('Case-subject')).rejects.toThrow(/Duplicate entry/);
    } else {
      await link('Case-subject');
      await migrated.db.deleteFrom('external_identities').where('subject', '=', 'Case-subject').execute();
    }
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await link('Case-subject');
    await link('c\u00e4se-subject');
    const subjects = await migrated.db
      .selectFrom('external_identities')
      .select('subject')
      .where('issuer', '=', 'https://idp.example')
      .where('subject', '=', 'case-subject')
      .execute();
    expect(subjects).toEqual([{ subject: 'case-subject' }]);
    // back to the table's collation is refused while two links differ only in case, changing nothing
    if (kind === 'mysql') {
      const down = await migrator.migrateTo('037-session-origin');
      expect(String(down.error)).toMatch(/Duplicate entry/);
      await link('CASE-SUBJECT');
    }
    await migrated.db.deleteFrom('external_identities').where('issuer', '=', 'https://idp.example').execute();
  });

  it('keeps external subjects that differ only in trailing spaces apart from migration 039 (MariaDB), and takes them back', async () => {
    const migrator = new Migrator({ db: migrated.db, provider: migrationProvider(kind), allowUnorderedMigrations: true });
    const { id: userId } = await migrated.db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow();
    const issuer = 'https://padded.idp.example';
    const link = (subject: string) =>
      migrated.db
        .insertInto('external_identities')
        .values({ issuer, subject, user_id: userId, created_at: new Date().toISOString() })
        .execute();
    expect((await migrator.migrateTo('038-external-identity-binary')).error).toBeUndefined();
    await link('pad-subject');
    if (kind === 'mysql') {
      // utf8mb4_bin is PAD SPACE: the key took `pad-subject ` for `pad-subject`
      await expect(link('pad-subject ')).rejects.toThrow(/Duplicate entry/);
    } else {
      await link('pad-subject ');
      await migrated.db.deleteFrom('external_identities').where('subject', '=', 'pad-subject ').execute();
    }
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await link('pad-subject ');
    await link('pad-subject  ');
    const found = (subject: string) =>
      migrated.db
        .selectFrom('external_identities')
        .select('subject')
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .execute();
    expect(await found('pad-subject')).toEqual([{ subject: 'pad-subject' }]);
    expect(await found('pad-subject ')).toEqual([{ subject: 'pad-subject ' }]);
    // back to utf8mb4_bin is refused while two links differ only in trailing spaces, changing nothing
    if (kind === 'mysql') {
      const down = await migrator.migrateTo('038-external-identity-binary');
      expect(String(down.error)).toMatch(/Duplicate entry/);
      expect(await found('pad-subject ')).toEqual([{ subject: 'pad-subject ' }]);
    }
    await migrated.db.deleteFrom('external_identities').where('issuer', '=', issuer).execute();
    expect((await migrator.migrateTo('038-external-identity-binary')).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
});
