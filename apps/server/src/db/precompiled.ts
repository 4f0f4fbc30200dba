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
  /** For each parameter, the name of the argument it takes, or undefined: a fixed value. */
  slots: readonly (string | undefined)[];
}

/**
 * A query built and compiled once per database dialect instead of on every call: building a
 * Kysely query (parsing references, freezing nodes) costs more than running a short indexed
 * query, which matters on paths every request takes (the session check). `build` receives
 * stand-ins for its arguments and must use each only as a plain value (`where(col, '=', args.x)`),
 * never inspect it or branch on it; the compiled SQL is then run with the real values in their
 * places. Works inside transactions (the template is keyed by the dialect's adapter, which a
 * transaction shares with its database). Outside a transaction it runs on the driver directly
 * where the database allows (`directRead`): a precompiled query must be a read. The rows come
 * at once when the driver answers at once (SQLite), so a caller on a hot path need not wait a turn.
 */
export function precompiled<A extends Record<string, unknown>, R>(
  build: (db: Kysely<DB>, args: A) => Compilable<R>,
): (db: Kysely<DB>, args: A) => R[] | Promise<R[]> {
  const templates = new WeakMap<object, Template>();
  const stand = new Proxy({} as A, { get: (_, name) => new Slot(String(name)) });
  // the database handle of the last call and its template: most calls come through the same one
  let lastDb: Kysely<DB> | undefined;
  let lastTemplate: Template | undefined;
  return (db, args) => {
    let template = db === lastDb ? lastTemplate! : undefined;
    if (!template) {
      const adapter = db.getExecutor().adapter;
      template = templates.get(adapter);
      if (!template) {
        const { sql, parameters } = build(db, stand).compile();
        template = { sql, parameters, slots: parameters.map((value) => (value instanceof Slot ? value.name : undefined)) };
        templates.set(adapter, template);
      }
      lastDb = db;
      lastTemplate = template;
    }
    const { slots } = template;
    const parameters: unknown[] = new Array(slots.length);
    for (let i = 0; i < slots.length; i += 1) {
      const slot = slots[i];
      parameters[i] = slot === undefined ? template.parameters[i] : args[slot];
    }
    const rows = directRead(db, template.sql, parameters);
    if (rows) return rows as R[] | Promise<R[]>;
    return db.executeQuery<R>(CompiledQuery.raw(template.sql, parameters)).then((result) => result.rows);
  };
}
