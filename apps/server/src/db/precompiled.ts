import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { directRead } from './direct-reads.js';

/** Stands for an argument while a query is compiled once; replaced by the value at each run. */
class Slot {
  constructor(readonly name: string) {}
}

interface Template {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * A query built and compiled once per database dialect instead of on every call: building a
 * Kysely query (parsing references, freezing nodes) costs more than running a short indexed
 * query, which matters on paths every request takes (the session check). `build` receives
 * stand-ins for its arguments and must use each only as a plain value (`where(col, '=', args.x)`),
 * never inspect it or branch on it; the compiled SQL is then run with the real values in their
 * places. Works inside transactions (the template is keyed by the dialect's adapter, which a
 * transaction shares with its database). Outside a transaction it runs on the driver directly
 * where the database allows (`directRead`): a precompiled query must be a read.
 */
export function precompiled<A extends Record<string, unknown>, R>(
  build: (db: Kysely<DB>, args: A) => Compilable<R>,
): (db: Kysely<DB>, args: A) => Promise<R[]> {
  const templates = new WeakMap<object, Template>();
  const stand = new Proxy({} as A, { get: (_, name) => new Slot(String(name)) });
  return async (db, args) => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (!template) {
      const { sql, parameters } = build(db, stand).compile();
      template = { sql, parameters };
      templates.set(adapter, template);
    }
    const parameters = template.parameters.map((value) => (value instanceof Slot ? args[value.name] : value));
    const rows = directRead(db, template.sql, parameters);
    if (rows) return (await rows) as R[];
    const result = await db.executeQuery<R>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
