import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDatabase } from './database.js';

// What GET /ui/admin/database reports of the running database (no connection is made to describe it).
describe('describing the database a server runs on', () => {
  const describeUrl = async (kind: 'postgres' | 'mysql', url: string) => {
    const database = createDatabase({ kind, url });
    try {
      return database.describe();
    } finally {
      await database.close();
    }
  };

  it('names the host and port of a server on TCP, the default port when the URL has none', async () => {
    expect(await describeUrl('postgres', 'postgres://app:secret@db.example:6543/manifold')).toEqual({
      databaseType: 'postgres',
      databaseHost: 'db.example',
      databasePort: 6543,
      databaseName: 'manifold',
      databaseUser: 'app',
    });
    expect(await describeUrl('mysql', 'mysql://root@127.0.0.1/test')).toMatchObject({
      databaseHost: '127.0.0.1',
      databasePort: 3306,
    });
    expect(await describeUrl('postgres', 'postgres://root@127.0.0.1/test')).toMatchObject({ databasePort: 5432 });
  });

  it('names the socket, and no port, of a server on its Unix socket', async () => {
    expect(await describeUrl('postgres', 'postgres://postgres@localhost/test?host=/var/run/postgresql')).toEqual({
      databaseType: 'postgres',
      databaseHost: '/var/run/postgresql',
      databasePort: null,
      databaseName: 'test',
      databaseUser: 'postgres',
    });
    expect(await describeUrl('mysql', 'mysql://root@localhost/test?socketPath=/run/mysqld/mysqld.sock')).toEqual({
      databaseType: 'mysql',
      databaseHost: '/run/mysqld/mysqld.sock',
      databasePort: null,
      databaseName: 'test',
      databaseUser: 'root',
    });
    // node-postgres connects to a host parameter over the URL's host
    expect(await describeUrl('postgres', 'postgres://u@a.example:5433/d?host=b.example')).toMatchObject({
      databaseHost: 'b.example',
      databasePort: 5433,
    });
  });
});

// SQLite changes its schema in a transaction: a migrate call that fails leaves nothing of itself
describe('migrating SQLite', () => {
  it('runs a migrate call in one transaction: a failed migration leaves nothing half made', async () => {
    const database = createDatabase({ kind: 'sqlite', file: ':memory:' });
    try {
      const tables = async () =>
        (
          await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like 't_%'`.execute(
            database.db,
          )
        ).rows.map((row) => row.name);
      const migrator = new Migrator({
        db: database.db,
        provider: {
          getMigrations: async () => ({
            '1-first': { up: (db) => db.schema.createTable('t_first').addColumn('a', 'integer').execute() },
            '2-second': {
              up: async (db) => {
                await db.schema.createTable('t_second').addColumn('a', 'integer').execute();
                throw new Error('half-way');
              },
            },
          }),
        },
      });
      const { error, results } = await migrator.migrateToLatest();
      expect((error as Error).message).toBe('half-way');
      expect(results?.map((result) => result.status)).toEqual(['Success', 'Error']);
      expect(await tables()).toEqual([]);
      expect((await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(database.db)).rows[0]!.n).toBe(0);
    } finally {
      await database.close();
    }
  });
});
