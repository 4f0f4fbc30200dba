import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { nameStatements, PLAN_WITH_VALUES } from '../src/db/pg-named-statements.js';
import { serverUrl } from './helpers/database-servers.js';

// PostgreSQL only: which queries the pool prepares under a name (planned once, then generic)
// and which it sends unnamed (planned with their values every time).
describe.runIf(inject('databases').includes('postgres'))('named statements on PostgreSQL', () => {
  let pool: pg.Pool;

  beforeAll(() => {
    pool = nameStatements(new pg.Pool({ connectionString: serverUrl('postgres'), max: 1 }));
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
});
