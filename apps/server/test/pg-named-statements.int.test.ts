import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { nameStatements, PLAN_WITH_VALUES } from '../src/db/pg-named-statements.js';
import { serverUrl } from './helpers/database-servers.js';

// PostgreSQL only: which queries the pool prepares under a name (planned once, then generic)
// and which it sends unnamed (planned with their values every time).
describe.runIf(inject('databases').includes('postgres'))('named statements on PostgreSQL', () => {
  let pool: pg.Pool;

  beforeAll(() => {
    pool = nameStatements(new pg.Pool({ connectionString: serverUrl('postgres'), max: 1 }), pg.Query);
  });

  afterAll(async () => {
    await pool.end();
  });

  it('prepares a parameterised query under a name, but not one marked to be planned with its values', async () => {
    // as Kysely queries: on a client of the pool, without a callback
    const client = await pool.connect();
    try {
      expect((await client.query('select $1::int + 1 as n', [1])).rows).toEqual([{ n: 2 }]);
      expect((await client.query(`${PLAN_WITH_VALUES} select $1::int + 2 as n`, [1])).rows).toEqual([{ n: 3 }]);
      expect((await client.query('select 3 as n')).rows).toEqual([{ n: 3 }]);
      const { rows } = await client.query<{ statement: string }>(
        'select statement from pg_prepared_statements order by statement',
      );
      expect(rows.map((row) => row.statement)).toEqual(['select $1::int + 1 as n']);
    } finally {
      client.release();
    }
  });

  it("answers a named statement's rows and its errors as pg does, and sends one whose table changed under it unnamed", async () => {
    const client = await pool.connect();
    try {
      await client.query('create temporary table named_probe (a int)');
      await client.query('insert into named_probe values (1), (2)');
      const probe = 'select * from named_probe where a >= $1 order by a';
      const first = await client.query(probe, [1]);
      expect(first.rows).toEqual([{ a: 1 }, { a: 2 }]);
      expect(first.rowCount).toBe(2);
      expect(first.fields.map((field) => field.name)).toEqual(['a']);
      await expect(client.query('select $1::int / 0 as n', [1])).rejects.toMatchObject({ code: '22012' });
      // the prepared plan's result type no longer matches: PostgreSQL refuses it (0A000), the query is sent again unnamed
      await client.query('alter table named_probe add column b int default 7');
      expect((await client.query(probe, [2])).rows).toEqual([{ a: 2, b: 7 }]);
      expect((await client.query(probe, [1])).rows).toEqual([
        { a: 1, b: 7 },
        { a: 2, b: 7 },
      ]);
    } finally {
      await client.query('drop table if exists named_probe');
      client.release();
    }
  });
});
