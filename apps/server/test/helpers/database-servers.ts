import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';

export const serverUrls = {
  postgres: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
};

type ServerKind = keyof typeof serverUrls;

async function withServer<T>(kind: ServerKind, work: (query: (sql: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: serverUrls.postgres, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return await work((sql) => client.query(sql));
    } finally {
      await client.end();
    }
  }
  const connection = await mysql.createConnection({ uri: serverUrls.mysql, connectTimeout: 3000 });
  try {
    return await work((sql) => connection.query(sql));
  } finally {
    await connection.end();
  }
}

export async function probeDatabases(): Promise<{
  available: ServerKind[];
  missing: { kind: ServerKind; url: string; reason: string }[];
}> {
  const available: ServerKind[] = [];
  const missing: { kind: ServerKind; url: string; reason: string }[] = [];
  for (const kind of Object.keys(serverUrls) as ServerKind[]) {
    try {
      await withServer(kind, (query) => query('select 1'));
      available.push(kind);
    } catch (error) {
      missing.push({ kind, url: serverUrls[kind], reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { available, missing };
}

/** A fresh, empty database on the server, and a way to drop it. */
export async function createScratchDatabase(kind: ServerKind): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `manifold_test_${randomBytes(6).toString('hex')}`;
  await withServer(kind, (query) => query(`create database ${name}`));
  const url = new URL(serverUrls[kind]);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withServer(kind, (query) =>
        query(kind === 'postgres' ? `drop database if exists ${name} with (force)` : `drop database if exists ${name}`),
      ).then(() => undefined),
  };
}
