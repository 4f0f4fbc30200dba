/**
 * Reading an OpenAPI 3.1 document for the console's API reference: its operations grouped by tag,
 * and each JSON Schema 2020-12 summarised as a type label, its constraints and its fields, with
 * references into `#/components/…` resolved. Pure functions, no rendering.
 */

export type JsonSchema = Record<string, unknown> | boolean;

export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string; description?: string };
  tags?: { name: string; description?: string }[];
  security?: unknown[];
  paths: Record<string, unknown>;
  components?: Record<string, Record<string, unknown> | undefined>;
}

export interface ApiContent {
  mediaType: string;
  schema?: JsonSchema;
}

export interface ApiParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface ApiResponse {
  status: string;
  description: string;
  contents: ApiContent[];
}

export interface ApiOperation {
  /** `GET /ui/order/list`: unique in a document. */
  key: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The operation's `x-access`: who may call it (anonymous, anyRole, admin, partner), when stated. */
  access?: string;
  /** Whether it asks for a bearer token (`security`). */
  secured: boolean;
  deprecated: boolean;
  parameters: ApiParameter[];
  requestBody?: { required: boolean; description?: string; contents: ApiContent[] };
  responses: ApiResponse[];
}

export interface ApiTagGroup {
  tag: string;
  description?: string;
  operations: ApiOperation[];
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The object a local reference (`#/components/schemas/Order`) points at, or undefined. */
export function resolvePointer(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** `value`, or what it references when it is a `{$ref}` object (followed a few times at most). */
function dereference(document: OpenApiDocument, value: unknown): unknown {
  let node = value;
  for (let hops = 0; hops < 8 && isRecord(node) && typeof node.$ref === 'string'; hops++) {
    node = resolvePointer(document, node.$ref);
  }
  return node;
}

function contentsOf(value: unknown): ApiContent[] {
  if (!isRecord(value)) return [];
  return Object.entries(value).map(([mediaType, media]) => ({
    mediaType,
    schema:
      isRecord(media) && (isRecord(media.schema) || typeof media.schema === 'boolean') ? (media.schema as JsonSchema) : undefined,
  }));
}

function parametersOf(document: OpenApiDocument, ...lists: unknown[]): ApiParameter[] {
  const byKey = new Map<string, ApiParameter>();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = dereference(document, raw);
      if (!isRecord(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
      // an operation's parameter replaces the path item's of the same name and place
      byKey.set(`${parameter.in} ${parameter.name}`, {
        name: parameter.name,
        in: parameter.in,
        required: parameter.required === true || parameter.in === 'path',
        description: text(parameter.description),
        schema: isRecord(parameter.schema) ? parameter.schema : undefined,
      });
    }
  }
  const order = ['path', 'query', 'header', 'cookie'];
  return [...byKey.values()].sort((a, b) => order.indexOf(a.in) - order.indexOf(b.in));
}

/** Every operation of the document, in the order of its paths and, within one, of the methods. */
export function operationsOf(document: OpenApiDocument): ApiOperation[] {
  const operations: ApiOperation[] = [];
  const globalSecurity = Array.isArray(document.security) && document.security.length > 0;
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = dereference(document, rawItem);
    if (!isRecord(item)) continue;
    for (const method of methods) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      const body = dereference(document, operation.requestBody);
      const responses = isRecord(operation.responses) ? operation.responses : {};
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method,
        path,
        summary: text(operation.summary) ?? '',
        description: text(operation.description),
        tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [],
        access: text(operation['x-access']),
        secured: Array.isArray(operation.security) ? operation.security.length > 0 : globalSecurity,
        deprecated: operation.deprecated === true,
        parameters: parametersOf(document, item.parameters, operation.parameters),
        requestBody: isRecord(body)
          ? { required: body.required === true, description: text(body.description), contents: contentsOf(body.content) }
          : undefined,
        responses: Object.entries(responses)
          .map(([status, raw]) => {
            const response = dereference(document, raw);
            return {
              status,
              description: isRecord(response) ? (text(response.description) ?? '') : '',
              contents: isRecord(response) ? contentsOf(response.content) : [],
            };
          })
          .sort((a, b) => a.status.localeCompare(b.status)),
      });
    }
  }
  return operations;
}

/**
 * The operations by tag: the document's tags first, in its order, then the others alphabetically;
 * an operation without a tag under `untagged`. Within a tag, by path then method.
 */
export function groupByTag(document: OpenApiDocument, operations: readonly ApiOperation[], untagged: string): ApiTagGroup[] {
  const declared = (document.tags ?? []).filter((tag) => typeof tag?.name === 'string');
  const groups = new Map<string, ApiOperation[]>();
  for (const operation of operations) {
    for (const tag of operation.tags.length > 0 ? operation.tags : [untagged]) {
      const group = groups.get(tag);
      if (group) group.push(operation);
      else groups.set(tag, [operation]);
    }
  }
  const names = [
    ...declared.map((tag) => tag.name).filter((name) => groups.has(name)),
    ...[...groups.keys()].filter((name) => !declared.some((tag) => tag.name === name)).sort((a, b) => a.localeCompare(b)),
  ];
  return names.map((tag) => ({
    tag,
    description: text(declared.find((entry) => entry.name === tag)?.description),
    operations: groups
      .get(tag)!
      .sort((a, b) => a.path.localeCompare(b.path) || methods.indexOf(a.method as never) - methods.indexOf(b.method as never)),
  }));
}

/** An operation's anchor in the reference's address: its method in lower case, then its path (`get/ui/order/list`). */
export function operationAnchor(operation: Pick<ApiOperation, 'method' | 'path'>): string {
  return `${operation.method}${operation.path}`;
}

/** The key (`GET /ui/order/list`) an anchor names, from the address's fragment (`#get/ui/order/list`, percent-encoded or not). */
export function anchoredKey(fragment: string): string | undefined {
  let anchor: string;
  try {
    anchor = decodeURIComponent(fragment.replace(/^#/, ''));
  } catch {
    return undefined;
  }
  const match = new RegExp(`^(${methods.join('|')})(/.*)$`).exec(anchor);
  return match ? `${match[1]!.toUpperCase()} ${match[2]}` : undefined;
}

/** Whether an operation matches a search: every word in its method, path, summary or tags. */
export function operationMatches(operation: ApiOperation, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [operation.method, operation.path, operation.summary, ...operation.tags].join(' ').toLowerCase();
  return words.every((word) => haystack.includes(word));
}

export type SchemaConstraint =
  | { kind: 'enum'; values: unknown[] }
  | { kind: 'const'; value: unknown }
  | { kind: 'format'; value: string }
  | { kind: 'pattern'; value: string }
  | { kind: 'length'; min?: number; max?: number }
  | { kind: 'range'; min?: number; max?: number; exclusiveMin?: number; exclusiveMax?: number }
  | { kind: 'multipleOf'; value: number }
  | { kind: 'itemCount'; min?: number; max?: number }
  | { kind: 'uniqueItems' }
  | { kind: 'default'; value: unknown }
  | { kind: 'keys'; schema: JsonSchema };

export interface SchemaField {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface SchemaSummary {
  /** A short type label: `string`, `integer | null`, `Order[]`, `Order`, `object`, `any`. */
  type: string;
  /** The component name when the schema is a reference to one. */
  refName?: string;
  /** The component names whose fields this summary shows (its own, its items'): not to be opened again below it. */
  opens: string[];
  /** The reference chain already open above this schema names it: not expanded again. */
  recursive: boolean;
  description?: string;
  deprecated: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  constraints: SchemaConstraint[];
  /** The named fields of an object (or of the objects of an array). */
  fields: SchemaField[];
  /** Whether an object takes fields besides `fields`, and of what schema (true: any). */
  additional?: JsonSchema;
  /** `anyOf` / `oneOf` / `allOf` alternatives that are not plain types (those are in `type`). */
  variants?: { kind: 'anyOf' | 'oneOf' | 'allOf'; schemas: JsonSchema[] };
}

/** The largest integer JSON numbers carry exactly: bounds at it say only "an integer". */
const safeInteger = Number.MAX_SAFE_INTEGER;

function refName(ref: string): string {
  return decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1));
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Whether a schema is a bare type: a type keyword and nothing a reader would miss from its label. */
function isPlainType(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const keys = Object.keys(schema).filter((key) => key !== 'description' && key !== 'title');
  return keys.length === 1 && keys[0] === 'type' && (typeof schema.type === 'string' || Array.isArray(schema.type));
}

const isNullType = (schema: unknown): boolean => isRecord(schema) && schema.type === 'null' && Object.keys(schema).length === 1;

/**
 * The type label of a schema: its reference's name, its type(s) joined by `|`, `X[]` for an array
 * of X, a variant list of plain types joined by `|`, `enum`'s and `const`'s type, or `any`.
 */
export function typeLabel(document: OpenApiDocument, schema: JsonSchema | undefined, depth = 0): string {
  if (schema === undefined || schema === true) return 'any';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if (depth > 6) return '…';
  const types = Array.isArray(schema.type)
    ? schema.type.filter((type) => typeof type === 'string')
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (types.length > 0) {
    return types
      .map((type) => {
        if (type !== 'array') return type;
        const items = isRecord(schema.items) || typeof schema.items === 'boolean' ? schema.items : undefined;
        const inner = typeLabel(document, items, depth + 1);
        return inner.includes(' | ') ? `(${inner})[]` : `${inner}[]`;
      })
      .join(' | ');
  }
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const list = schema[kind];
    if (Array.isArray(list) && list.length > 0) {
      return list.map((variant) => typeLabel(document, variant as JsonSchema, depth + 1)).join(' | ');
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schema.allOf.map((variant) => typeLabel(document, variant as JsonSchema, depth + 1)).join(' & ');
  }
  if (Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((value) => (value === null ? 'null' : typeof value)))].join(' | ');
  if ('const' in schema) return schema.const === null ? 'null' : typeof schema.const;
  if (isRecord(schema.properties)) return 'object';
  return 'any';
}

/**
 * A schema summarised for display. `open` is the chain of component names being shown above it: a
 * reference to one of them is marked recursive and not expanded.
 */
export function summarizeSchema(
  document: OpenApiDocument,
  schema: JsonSchema | undefined,
  open: readonly string[] = [],
): SchemaSummary {
  const summary: SchemaSummary = {
    type: typeLabel(document, schema),
    recursive: false,
    opens: [],
    deprecated: false,
    readOnly: false,
    writeOnly: false,
    constraints: [],
    fields: [],
  };
  if (!isRecord(schema)) return summary;
  // `X | null` (a nullable field): X's fields and constraints, under the label that says null
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const list = schema[kind];
    if (
      Array.isArray(list) &&
      list.length === 2 &&
      list.some(isNullType) &&
      schema.type === undefined &&
      schema.$ref === undefined
    ) {
      const inner = summarizeSchema(document, list.find((variant) => !isNullType(variant)) as JsonSchema, open);
      return { ...inner, type: summary.type, description: text(schema.description) ?? inner.description };
    }
  }
  let target: Record<string, unknown> = schema;
  if (typeof schema.$ref === 'string') {
    summary.refName = refName(schema.$ref);
    if (open.includes(summary.refName)) return { ...summary, recursive: true, description: text(schema.description) };
    summary.opens.push(summary.refName);
    const resolved = dereference(document, schema);
    if (isRecord(resolved)) target = { ...resolved, ...(text(schema.description) ? { description: schema.description } : {}) };
  }
  summary.description = text(target.description) ?? text(target.title);
  summary.deprecated = target.deprecated === true;
  summary.readOnly = target.readOnly === true;
  summary.writeOnly = target.writeOnly === true;
  summary.constraints = constraintsOf(target);
  // an array shows its items' fields and constraints as its own
  let fieldsOf = target;
  if (fieldsOf.type === 'array' || (Array.isArray(fieldsOf.type) && fieldsOf.type.includes('array'))) {
    const itemsRef =
      isRecord(fieldsOf.items) && typeof fieldsOf.items.$ref === 'string' ? refName(fieldsOf.items.$ref) : undefined;
    if (itemsRef !== undefined && open.includes(itemsRef)) return { ...summary, recursive: true };
    if (itemsRef !== undefined) summary.opens.push(itemsRef);
    const items = dereference(document, fieldsOf.items);
    if (isRecord(items)) {
      summary.constraints.push(...constraintsOf(items).filter((constraint) => constraint.kind !== 'itemCount'));
      fieldsOf = items;
      if (!text(summary.description)) summary.description = text(items.description);
    }
  }
  if (isRecord(fieldsOf.properties)) {
    const required = Array.isArray(fieldsOf.required) ? fieldsOf.required : [];
    summary.fields = Object.entries(fieldsOf.properties).map(([name, field]) => ({
      name,
      required: required.includes(name),
      schema: isRecord(field) || typeof field === 'boolean' ? (field as JsonSchema) : true,
    }));
  }
  if (fieldsOf.additionalProperties !== undefined && fieldsOf.additionalProperties !== false) {
    summary.additional = fieldsOf.additionalProperties as JsonSchema;
  } else if (fieldsOf.type === 'object' && fieldsOf.additionalProperties === undefined && summary.fields.length === 0) {
    summary.additional = true;
  }
  for (const kind of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = fieldsOf[kind];
    if (Array.isArray(list) && list.length > 0 && !(kind !== 'allOf' && list.every((variant) => isPlainType(variant)))) {
      summary.variants = { kind, schemas: list as JsonSchema[] };
      break;
    }
  }
  return summary;
}

function constraintsOf(schema: Record<string, unknown>): SchemaConstraint[] {
  const constraints: SchemaConstraint[] = [];
  if (Array.isArray(schema.enum)) constraints.push({ kind: 'enum', values: schema.enum });
  if ('const' in schema) constraints.push({ kind: 'const', value: schema.const });
  if (typeof schema.format === 'string') constraints.push({ kind: 'format', value: schema.format });
  // a uuid's pattern says what its format does
  if (typeof schema.pattern === 'string' && schema.format !== 'uuid')
    constraints.push({ kind: 'pattern', value: schema.pattern });
  const minLength = numberOrUndefined(schema.minLength);
  const maxLength = numberOrUndefined(schema.maxLength);
  if (minLength !== undefined || maxLength !== undefined) constraints.push({ kind: 'length', min: minLength, max: maxLength });
  const bound = (value: unknown, edge: number) => {
    const number = numberOrUndefined(value);
    return number === undefined || Math.abs(number) === edge ? undefined : number;
  };
  const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  const edge = integer ? safeInteger : Number.POSITIVE_INFINITY;
  const range = {
    min: bound(schema.minimum, edge),
    max: bound(schema.maximum, edge),
    exclusiveMin: bound(schema.exclusiveMinimum, edge),
    exclusiveMax: bound(schema.exclusiveMaximum, edge),
  };
  if (Object.values(range).some((value) => value !== undefined)) {
    constraints.push({ kind: 'range', ...Object.fromEntries(Object.entries(range).filter(([, value]) => value !== undefined)) });
  }
  const multipleOf = numberOrUndefined(schema.multipleOf);
  if (multipleOf !== undefined) constraints.push({ kind: 'multipleOf', value: multipleOf });
  const minItems = numberOrUndefined(schema.minItems);
  const maxItems = numberOrUndefined(schema.maxItems);
  if (minItems !== undefined || maxItems !== undefined) constraints.push({ kind: 'itemCount', min: minItems, max: maxItems });
  if (schema.uniqueItems === true) constraints.push({ kind: 'uniqueItems' });
  if (isRecord(schema.propertyNames)) constraints.push({ kind: 'keys', schema: schema.propertyNames });
  if ('default' in schema) constraints.push({ kind: 'default', value: schema.default });
  return constraints;
}
