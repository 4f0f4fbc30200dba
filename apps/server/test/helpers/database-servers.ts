import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DatabaseKind, DatabaseTarget } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';

type ServerKind = Exclude<DatabaseKind, 'sqlite'>;

const urlVariables: Record<ServerKind, string> = { postgres: 'TEST_POSTGRES_URL', mysql: 'TEST_MYSQL_URL' };
const tcpUrls: Record<ServerKind, string> = {
  postgres: 'postgres://postgres@127.0.0.1:5432/test',
  mysql: 'mysql://root@127.0.0.1:3306/test',
};
/** The same servers on this machine's Unix sockets (Debian's places for them). */
const socketUrls: Record<ServerKind, string> = {
  postgres: 'postgres://postgres@localhost/test?host=/var/run/postgresql',
  mysql: 'mysql://root@localhost/test?socketPath=/run/mysqld/mysqld.sock',
};

/** The server scratch databases of `kind` are made on: TEST_POSTGRES_URL / TEST_MYSQL_URL, else loopback TCP. */
export function serverUrl(kind: ServerKind): string {
  return process.env[urlVariables[kind]] || tcpUrls[kind];
}

/**
 * For the integration suite's global set-up, before its workers start: where TEST_POSTGRES_URL or
 * TEST_MYSQL_URL is not set, sets it to the local server's Unix socket when the server answers
 * there, which the workers inherit. A query then costs the client about half the CPU it costs over
 * loopback TCP (measured: 71 against 116 µs on PostgreSQL, 44 against 91 µs on MariaDB), for the
 * suite's hundreds of thousands of queries.
 */
export async function preferUnixSockets(): Promise<void> {
  for (const kind of Object.keys(urlVariables) as ServerKind[]) {
    if (process.env[urlVariables[kind]]) continue;
    try {
      await withUrl(kind, socketUrls[kind], (query) => query('select 1'));
      process.env[urlVariables[kind]] = socketUrls[kind];
    } catch {
      // no socket there (or not ours to use): loopback TCP, as before
    }
  }
}

function withServer<T>(kind: ServerKind, work: (query: (sql: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  return withUrl(kind, serverUrl(kind), work);
}

/**
 * Runs `work` on one connection to the database server (its `test` database), with a `count` that
 * tells how many connections are open to the database `name` (made by {@link createScratchDatabase})
 * and that connection closed afterwards.
 */
export function watchConnections<T>(
  kind: ServerKind,
  name: string,
  work: (count: () => Promise<number>) => Promise<T>,
): Promise<T> {
  return withServer(kind, (query) =>
    work(async () => {
      if (kind === 'postgres') {
        const result = (await query(
          `select count(*)::int as n from pg_stat_activity where datname = '${name}'`,
        )) as pg.QueryResult;
        return Number(result.rows[0].n);
      }
      const [rows] = (await query(`select count(*) as n from information_schema.processlist where db = '${name}'`)) as [
        { n: number }[],
      ];
      return Number(rows[0]!.n);
    }),
  );
}

async function withUrl<T>(
  kind: ServerKind,
  url: string,
  work: (query: (sql: string) => Promise<unknown>) => Promise<T>,
): Promise<T> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return await work((sql) => client.query(sql));
    } finally {
      await client.end();
    }
  }
  const connection = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
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
  for (const kind of Object.keys(urlVariables) as ServerKind[]) {
    try {
      await withServer(kind, (query) => query('select 1'));
      available.push(kind);
    } catch (error) {
      missing.push({ kind, url: serverUrl(kind), reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { available, missing };
}

/**
 * A fresh database on the server, empty or (PostgreSQL) a copy of `template`, and a way to drop it.
 * `unflushedCommits` (PostgreSQL, for the test suites, not the benchmarks): commits do not wait
 * for the write-ahead log to reach the disk (`synchronous_commit` off: 0.09 against 0.9 ms a commit
 * here); what the tests kill is our server, never the database server.
 */
export async function createScratchDatabase(
  kind: ServerKind,
  options: { template?: string; unflushedCommits?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `manifold_test_${randomBytes(6).toString('hex')}`;
  await withServer(kind, async (query) => {
    await query(options.template ? `create database ${name} template ${options.template}` : `create database ${name}`);
    if (options.unflushedCommits && kind === 'postgres') await query(`alter database ${name} set synchronous_commit = off`);
  });
  const url = new URL(serverUrl(kind));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withServer(kind, (query) =>
        query(kind === 'postgres' ? `drop database if exists ${name} with (force)` : `drop database if exists ${name}`),
      ).then(() => undefined),
  };
}

/**
 * Migrated databases to copy from, one per kind, made once per run by the integration global
 * set-up: running the 27 migrations took 0.2 s on SQLite, 0.65 s on PostgreSQL and 1.4 s on
 * MariaDB for every suite; a copy takes 5 ms, 0.2 s and 0.5 s. `sqlite` is a file, the others
 * database names on their server.
 */
export type DatabaseTemplates = Partial<Record<DatabaseKind, string>>;

/** Makes a migrated template of each kind in `directory` (SQLite) or on its server, and a way to drop them all. */
export async function createTemplates(
  kinds: readonly DatabaseKind[],
  directory: string,
): Promise<{ templates: DatabaseTemplates; drop(): Promise<void> }> {
  const templates: DatabaseTemplates = {};
  const drops: (() => Promise<void>)[] = [];
  const drop = async () => {
    for (const dropOne of drops) await dropOne();
  };
  try {
    for (const kind of kinds) {
      let target: DatabaseTarget;
      if (kind === 'sqlite') {
        templates.sqlite = path.join(directory, 'template.db');
        target = { kind, file: templates.sqlite };
      } else {
        const scratch = await createScratchDatabase(kind);
        drops.push(scratch.drop);
        templates[kind] = new URL(scratch.url).pathname.slice(1);
        target = { kind, url: scratch.url };
      }
      const database = createDatabase(target);
      try {
        await database.migrate();
      } finally {
        await database.close();
      }
    }
    if (templates.sqlite && fs.existsSync(`${templates.sqlite}-wal`))
      throw new Error('the SQLite template kept a write-ahead log');
  } catch (error) {
    await drop();
    throw error;
  }
  return { templates, drop };
}

/** The statements that make a MariaDB template's tables, triggers and rows again, read once per process. */
const mysqlCopies = new Map<string, Promise<string[]>>();

function mysqlCopyStatements(template: string): Promise<string[]> {
  let statements = mysqlCopies.get(template);
  if (!statements) {
    statements = withServer('mysql', async (query) => {
      const rows = async (sql: string) => (await query(sql)) as [Record<string, unknown>[]];
      const [tables] = await rows(
        `select table_name as name from information_schema.tables where table_schema = '${template}' and table_type = 'BASE TABLE' order by table_name`,
      );
      const [triggers] = await rows(
        `select trigger_name as name from information_schema.triggers where trigger_schema = '${template}' order by trigger_name`,
      );
      const out = ['set foreign_key_checks = 0'];
      for (const table of tables) {
        const [[created]] = await rows(`show create table \`${template}\`.\`${String(table.name)}\``);
        out.push(String(created!['Create Table']));
      }
      for (const table of tables) {
        const [[count]] = await rows(`select count(*) as n from \`${template}\`.\`${String(table.name)}\``);
        if (Number(count!.n) > 0)
          out.push(`insert into \`${String(table.name)}\` select * from \`${template}\`.\`${String(table.name)}\``);
      }
      for (const trigger of triggers) {
        const [[created]] = await rows(`show create trigger \`${template}\`.\`${String(trigger.name)}\``);
        out.push(String(created!['SQL Original Statement']));
      }
      return out;
    });
    mysqlCopies.set(template, statements);
  }
  return statements;
}

/**
 * A fresh database holding what the migrations make, copied from the run's template, and a way to
 * drop it. SQLite's is `file`; PostgreSQL's commits unflushed (see `createScratchDatabase`).
 */
export async function createMigratedDatabase(
  kind: DatabaseKind,
  templates: DatabaseTemplates,
  file: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const template = templates[kind];
  if (!template) throw new Error(`no ${kind} template was made for this run`);
  if (kind === 'sqlite') {
    await fs.promises.copyFile(template, file, fs.constants.COPYFILE_EXCL);
    return { url: `sqlite:${file}`, drop: async () => undefined };
  }
  if (kind === 'postgres') return createScratchDatabase(kind, { template, unflushedCommits: true });
  const statements = await mysqlCopyStatements(template);
  const scratch = await createScratchDatabase(kind);
  try {
    const connection = await mysql.createConnection({ uri: scratch.url, multipleStatements: true, connectTimeout: 3000 });
    try {
      await connection.query(statements.join(';\n'));
    } finally {
      await connection.end();
    }
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return scratch;
}
