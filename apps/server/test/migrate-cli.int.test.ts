import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/database.js';
import { runCli } from './helpers/cli.js';
import { createScratchDatabase } from './helpers/database-servers.js';

// `npm run migrate` (apps/server/src/cli/migrate.ts): lists the migrations and undoes those after
// a named one, on the database the server's settings name. Every migration's `down` is checked on
// every database in database-templates.int.test.ts; this is the command around them.

const cli = path.resolve(import.meta.dirname, '../src/cli/migrate.ts');

function migrate(env: Record<string, string>, ...args: string[]) {
  return runCli(cli, args, { env });
}

const ranMigrations = async (database: Database) =>
  (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db)).rows.map((row) => row.name);

describe('npm run migrate', () => {
  let dataDir: string;
  let database: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'manifold-migrate-cli-'));
    database = createDatabase({ kind: 'sqlite', file: path.join(dataDir, 'manifold.db') });
    await database.migrate();
    env = { DATA_DIR: dataDir };
  });

  afterAll(async () => {
    await database?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('lists every migration in the order it ran', async () => {
    const { code, stdout } = await migrate(env, '--list');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(await ranMigrations(database));
    expect(lines.every((line) => / {2}ran \d{4}-\d\d-\d\dT/.test(line))).toBe(true);
  });

  it('without --yes only says what it would undo', async () => {
    const before = await ranMigrations(database);
    const { code, stdout } = await migrate(env, '--down-to', '033-list-counts');
    expect(code).toBe(0);
    expect(stdout).toBe(
      'would undo, newest first (add --yes to do it):\n  039-external-identity-nopad\n  038-external-identity-binary\n  037-session-origin\n  036-stored-object-references\n  035-username-order\n  034-authorization-filter-indexes\n',
    );
    expect(await ranMigrations(database)).toEqual(before);
  });

  it('with --yes undoes them, newest first, and the server migrates up again', async () => {
    const { code, stdout } = await migrate(env, '--down-to', '033-list-counts', '--yes');
    expect(code).toBe(0);
    expect(stdout).toBe(
      '039-external-identity-nopad  undone\n038-external-identity-binary  undone\n037-session-origin  undone\n036-stored-object-references  undone\n035-username-order  undone\n034-authorization-filter-indexes  undone\n',
    );
    expect((await ranMigrations(database)).at(-1)).toBe('033-list-counts');
    expect(
      await database.db.introspection.getTables().then((tables) => tables.some((t) => t.name === 'quality_inspection_pictures')),
    ).toBe(false);
    const listed = await migrate(env, '--list');
    expect(listed.stdout).toMatch(
      /034-authorization-filter-indexes {2}pending\n035-username-order {2}pending\n036-stored-object-references {2}pending\n037-session-origin {2}pending\n038-external-identity-binary {2}pending\n039-external-identity-nopad {2}pending\n$/,
    );

    await database.migrate();
    expect((await ranMigrations(database)).at(-1)).toBe('039-external-identity-nopad');
    expect((await migrate(env, '--down-to', '039-external-identity-nopad', '--yes')).stdout).toBe(
      'nothing to undo: 039-external-identity-nopad is the last migration that ran\n',
    );
  });

  it('refuses what it cannot do, with exit code 2 and a reason', async () => {
    const missing = path.join(dataDir, 'elsewhere');
    const [none, noName, unknown, noDatabase, badUrl] = await Promise.all([
      migrate(env),
      migrate(env, '--down-to', '--yes'),
      migrate(env, '--down-to', '999-nothing', '--yes'),
      migrate({ DATA_DIR: missing }, '--list'),
      migrate({ ...env, DATABASE_URL: 'oracle://x' }, '--list'),
    ]);
    expect(none).toEqual({ code: 2, stdout: '', stderr: 'usage: npm run migrate -- --list | --down-to <migration> [--yes]\n' });
    expect(noName).toEqual(none);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: 'no migration named 999-nothing; npm run migrate -- --list shows them\n',
    });
    expect(noDatabase).toEqual({
      code: 2,
      stdout: '',
      stderr: `no database at ${path.join(missing, 'manifold.db')}: set DATA_DIR or DATABASE_URL as the server has them\n`,
    });
    expect(badUrl).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^DATABASE_URL: /) });
    expect(await ranMigrations(database)).toContain('039-external-identity-nopad');
  });
});

describe.runIf(inject('databases').includes('postgres'))('npm run migrate on PostgreSQL', () => {
  it('stops with exit code 1 where undoing would lose data, and undoes nothing', async () => {
    const scratch = await createScratchDatabase('postgres');
    const database = createDatabase({ kind: 'postgres', url: scratch.url });
    try {
      await database.migrate();
      // a batch's message: its 64-digit subject does not fit the UUID-wide column 031 widened
      const subject = 'a'.repeat(64);
      const now = new Date().toISOString();
      await sql`insert into outbox (kind, target_kind, target_id, subject_id, payload, state, attempts, next_attempt_at, created_at, updated_at)
        values ('eventBatch', 'trace', ${'00000000-0000-4000-8000-000000000000'}, ${subject}, '{}', 'pending', 0, ${now}, ${now}, ${now})`.execute(
        database.db,
      );
      const { code, stdout, stderr } = await migrate({ DATABASE_URL: scratch.url }, '--down-to', '030-list-changes', '--yes');
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        'stopped at 031-peer-devices: value too long for type character varying(36)\n' +
          'nothing was undone: the whole call ran in one transaction\n',
      );
      expect((await ranMigrations(database)).at(-1)).toBe('039-external-identity-nopad');
      const kept = await sql<{ subject_id: string }>`select subject_id from outbox`.execute(database.db);
      expect(kept.rows).toEqual([{ subject_id: subject }]);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});
