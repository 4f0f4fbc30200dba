import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Distinct statements one connection keeps prepared; beyond it, queries are sent unnamed. */
const perConnection = 1000;

/**
 * A query starting with this comment is sent unnamed, so PostgreSQL plans it with its values every
 * time: for a query whose best plan depends on them (a search from an anchor: with the anchor and
 * the limit known the planner reads the sort index in order; a generic plan, which knows neither,
 * reads and sorts every row).
 */
export const PLAN_WITH_VALUES = '/* plan with values */';

/** Statement names by text, shared by the connections (a digest per query costs as much as binding it). */
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `m${createHash('sha1').update(text).digest('base64url')}`;
    if (names.size >= perConnection) names.clear();
    names.set(text, name);
  }
  return name;
}

/**
 * Runs `text` with `values` as the prepared statement `name`, submitted by `submit` (a client's
 * `query`). pg copies every query object it is given, property descriptor by property descriptor
 * (about 3.5 µs a query; making the query from its text takes 0.25 µs), but not a query made from
 * its text: so the query is made from its text and named afterwards.
 */
export function queryNamed<R extends pg.QueryResultRow = pg.QueryResultRow>(
  submit: (query: pg.Query) => unknown,
  Query: typeof pg.Query,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<R>> {
  return new Promise((resolve, reject) => {
    const query = new Query(text, values as unknown[], (error, result) =>
      error ? reject(error) : resolve(result as unknown as pg.QueryResult<R>),
    );
    (query as pg.Query & { name: string }).name = name;
    submit(query);
  });
}

/**
 * PostgreSQL parses and plans an unnamed parameterised query on every execution. Kysely sends
 * every query unnamed, so this names them (by a digest of their text) on each pooled connection:
 * the server then parses a statement once per connection and binds values after. Only queries
 * with parameters are named (a named statement is one command, and migrations send scripts
 * without parameters, and queries marked {@link PLAN_WITH_VALUES}); cursors and query objects pass through untouched. A statement whose
 * table changed under it ("cached plan must not change result type", e.g. another instance
 * migrated) is retried, and from then on sent, unnamed.
 */
export function nameStatements(pool: pg.Pool, Query: typeof pg.Query): pg.Pool {
  pool.on('connect', (client) => {
    const named = new Set<string>();
    const stale = new Set<string>();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const submit = (submitted: pg.Query) => query(submitted);
    client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
      if (
        typeof text !== 'string' ||
        !Array.isArray(values) ||
        values.length === 0 ||
        typeof callback === 'function' ||
        text.startsWith(PLAN_WITH_VALUES)
      ) {
        return query(text, values, callback);
      }
      const name = statementName(text);
      if (stale.has(name)) return query(text, values);
      if (!named.has(name)) {
        if (named.size >= perConnection) return query(text, values);
        named.add(name);
      }
      return queryNamed(submit, Query, name, text, values).catch((error: { code?: string }) => {
        if (error.code !== '0A000') throw error;
        stale.add(name);
        return query(text, values);
      });
    }) as typeof client.query;
  });
  return pool;
}
