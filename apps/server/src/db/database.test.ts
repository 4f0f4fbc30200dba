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
