import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/test-app.js';

/**
 * A property-based fuzzer over every JSON route of the OpenAPI document: bodies and query strings
 * generated from each route's own schema (then bent: wrong types, hostile strings, extra keys),
 * sent as an admin, a user and nobody. No answer may be a 5xx or take long, and a refused
 * request (4xx) must leave every business table exactly as it was.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  format?: string;
  minimum?: number;
  maximum?: number;
};

interface Operation {
  method: 'GET' | 'POST';
  path: string;
  body?: Schema;
  query: { name: string; schema: Schema }[];
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
/** Routes that end the caller's own session or need a multipart form (the garbage suite sends them junk). */
const skipped = new Set(['POST /ui/user/logout', 'POST /ui/user/refresh', 'GET /ui/admin/api-spec']);
/**
 * Tables a refused request may legitimately write: the audit trail of refusals (and the audit list's
 * size and generation, which its triggers keep), throttling, sessions, replay nonces.
 */
const bookkeeping = new Set([
  'audit_events',
  'list_counts',
  'login_failures',
  'sessions',
  'stp_nonces',
  'jobs',
  'kysely_migration',
  'kysely_migration_lock',
]);

const hostileString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\u001b[31m',
    '\u202eevil',
    '\u200b',
    '\uFFFE',
    '\uD800',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '../../etc/passwd',
    '%00',
    '💥'.repeat(50),
    'x'.repeat(5000),
    '00000000-0000-0000-0000-000000000000',
    '1e309',
    '-1',
    'null',
  ),
);

const anyJson = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  hostileString,
  fc.constant([]),
  fc.constant({}),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -2147483649, 2 ** 63, 0),
);

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    current = components[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current;
}

function arbitraryOf(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, components);
  if (depth > 5) return anyJson;
  const shaped = shapedArbitrary(s, components, depth);
  // one value in eight is bent out of shape
  return fc.oneof({ weight: 7, arbitrary: shaped }, { weight: 1, arbitrary: anyJson });
}

function shapedArbitrary(s: Schema, components: Record<string, Schema>, depth: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const choices = s.anyOf ?? s.oneOf;
  if (choices?.length) return fc.oneof(...choices.map((choice) => arbitraryOf(choice, components, depth + 1)));
  if (s.allOf?.length) return arbitraryOf(s.allOf[0]!, components, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([key, value]) => [key, arbitraryOf(value, components, depth + 1)]),
      );
      return fc.record(properties, { requiredKeys: (s.required ?? []).filter((key) => key in properties) });
    }
    case 'array':
      return fc.array(s.items ? arbitraryOf(s.items, components, depth + 1) : anyJson, { maxLength: 4 });
    case 'string':
      return s.format === 'uuid' ? fc.oneof(fc.uuid(), hostileString) : hostileString;
    case 'integer':
      return fc.oneof(
        fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 }),
        fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER),
      );
    case 'number':
      return fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -1, 1e308));
    case 'boolean':
      return fc.boolean();
    default:
      return anyJson;
  }
}

function queryString(values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    params.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

describeEachDatabase('fuzzing every route from the OpenAPI document', (ctx) => {
  async function fingerprint(): Promise<string> {
    const db = ctx().app.services.database.db;
    const tables = (await db.introspection.getTables()).map((t) => t.name).filter((name) => !bookkeeping.has(name));
    const hash = createHash('sha256');
    for (const table of tables.sort()) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
      const lines = rows.rows.map((row) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).sort();
      hash.update(`${table}:${lines.join('\n')}\n`);
    }
    return hash.digest('hex');
  }

  it(`answers no 5xx, never hangs and changes nothing when it refuses (${RUNS} runs)`, async () => {
    const doc = (
      await ctx().app.inject({
        method: 'GET',
        url: '/ui/admin/api-spec',
        headers: { authorization: `Bearer ${await ctx().adminToken()}` },
      })
    ).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content?: Record<string, { schema: Schema }> };
            parameters?: { in: string; name: string; schema: Schema }[];
          }
        >
      >;
      components: { schemas: Record<string, Schema> };
    }>();
    const components = doc.components.schemas;
    const operations: Operation[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (skipped.has(key) || path.includes('{')) continue;
        const content = op.requestBody?.content;
        if (content && !content['application/json']) continue; // multipart forms
        operations.push({
          method: method.toUpperCase() as 'GET' | 'POST',
          path,
          body: content?.['application/json']?.schema,
          query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        });
      }
    }
    expect(operations.length).toBeGreaterThan(50);

    const user = (await ctx().createUser()).token;
    const request = fc.constantFrom(...operations).chain((operation) =>
      fc.record({
        operation: fc.constant(operation),
        caller: fc.constantFrom('admin', 'user', 'nobody'),
        body: operation.body ? arbitraryOf(operation.body, components) : fc.constant(undefined),
        query: fc.record(Object.fromEntries(operation.query.map((p) => [p.name, arbitraryOf(p.schema, components)])), {
          requiredKeys: [],
        }),
      }),
    );

    const findings: string[] = [];
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    const outcome = await fc.check(
      fc.asyncProperty(request, async ({ operation, caller, body, query }) => {
        const token = caller === 'admin' ? await ctx().adminToken() : caller === 'user' ? user : undefined;
        const before = await fingerprint();
        const started = Date.now();
        const response = await ctx().call(operation.method, operation.path + queryString(query as Record<string, unknown>), {
          ...(token ? { token } : {}),
          ...(operation.method === 'POST' ? { body: body === undefined ? {} : body } : {}),
        });
        const took = Date.now() - started;
        const label = `${operation.method} ${operation.path} as ${caller} ${JSON.stringify(body)?.slice(0, 200)} ${queryString(query as Record<string, unknown>).slice(0, 200)}`;
        const unimplemented = response.statusCode === 501 && response.json().errorToken === 'functionNotImplemented';
        if (response.statusCode >= 500 && !unimplemented)
          findings.push(`${label} → ${response.statusCode} ${response.body.slice(0, 200)}`);
        if (took > 10_000) findings.push(`${label} took ${took} ms`);
        if (response.statusCode >= 400 && (await fingerprint()) !== before) {
          findings.push(`${label} → ${response.statusCode} changed stored state`);
        }
        return findings.length === 0;
      }),
      { numRuns: RUNS, seed, endOnFailure: true },
    );
    expect({ seed, findings }).toEqual({ seed, findings: [] });
    expect(outcome.numRuns).toBe(RUNS);
  }, 600_000);
});
