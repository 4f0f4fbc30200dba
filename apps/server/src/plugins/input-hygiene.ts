import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error.js';
import { MAX_NESTING } from '../lib/canonical-json.js';
import { hasXmlForbidden } from '../lib/xml-text.js';

export type Forbidden = { path: string; nul: boolean; deep?: boolean };

const CLEAN = 0;
const FORBIDDEN = 1;
const DEEP = 2;

/** Whether any string (or key) holds a character XML cannot carry (NUL among them), or an object nests deeper than {@link MAX_NESTING}. */
function scan(value: unknown, depth: number): typeof CLEAN | typeof FORBIDDEN | typeof DEEP {
  if (typeof value === 'string') return hasXmlForbidden(value) ? FORBIDDEN : CLEAN;
  if (value === null || typeof value !== 'object') return CLEAN;
  if (depth > MAX_NESTING) return DEEP;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = scan(item, depth + 1);
      if (found !== CLEAN) return found;
    }
    return CLEAN;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (hasXmlForbidden(key)) return FORBIDDEN;
    const found = scan((value as Record<string, unknown>)[key], depth + 1);
    if (found !== CLEAN) return found;
  }
  return CLEAN;
}

/**
 * The first string (or key) holding NUL or another character XML cannot carry, with its path. A
 * clean value (nearly every one) is walked once without writing any path.
 */
export function findForbidden(value: unknown, path: string, depth = 0): Forbidden | null {
  const found = scan(value, depth);
  if (found === DEEP) return { path, nul: false, deep: true };
  return found === FORBIDDEN ? locateForbidden(value, path, depth) : null;
}

function locateForbidden(value: unknown, path: string, depth: number): Forbidden | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path, nul: true };
    return hasXmlForbidden(value) ? { path, nul: false } : null;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_NESTING) return null;
  for (const [key, item] of Object.entries(value)) {
    const where = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    const inKey = locateForbidden(key, where, MAX_NESTING);
    if (inKey) return inKey;
    const found = locateForbidden(item, where, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * NUL is malformed input (400; databases refuse or cut it), as is nesting deeper than
 * {@link MAX_NESTING}; other characters XML cannot carry answer 420 `invalidCharacters` naming the
 * field, before anything changes. A NUL names its field (`field`, as a refused body property is
 * named: `a.b`, `list[0]`) when it is in a property of JSON (`inProperty`: a request body, a file
 * or field a route reads); in the query string or a path parameter, or in a body that is not an
 * object, only the description says where.
 */
export function forbiddenCharacterError(found: Forbidden, inProperty = true): AppError {
  if (found.deep) {
    return new AppError('malformedRequest', {
      field: found.path,
      description: `${found.path} nests more than ${MAX_NESTING} levels deep`,
    });
  }
  if (!found.nul) return new AppError('invalidCharacters', { field: found.path });
  const named = inProperty && found.path !== '' && !found.path.startsWith('[');
  return new AppError('malformedRequest', {
    ...(named ? { field: found.path } : {}),
    description: `${found.path || 'body'} contains a NUL character`,
  });
}

/** Throws when `value` holds a forbidden character (for content read by a route itself, e.g. an uploaded JSON file). */
export function assertCarryableText(value: unknown, path = ''): void {
  const found = findForbidden(value, path);
  if (found) throw forbiddenCharacterError(found);
}

/**
 * Parses JSON text a client sent as a file: one leading UTF-8 byte order mark, which editors on
 * Windows write, is not part of the JSON (RFC 8259 §8.1 lets a parser ignore it) and is skipped.
 * Throws what `JSON.parse` throws.
 */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
}

/**
 * JSON text a route reads itself (an uploaded file, a multipart field), held to what a JSON body
 * is held to: parsed (`parseJsonText`; `notJson` answers text that is not JSON, with the parser's
 * reason), then {@link assertCarryableText} with the paths of its values under `path`. An escaped
 * `\u0000` is plain text until parsed, so the raw text passing the form's own check says nothing.
 */
export function parseCarryableJson(text: string, path: string, notJson: (reason: string) => AppError): unknown {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    throw notJson(error instanceof Error ? error.message : String(error));
  }
  assertCarryableText(json, path);
  return json;
}

/**
 * No string anywhere accepts NUL or characters XML cannot carry, and no value nests deeper than
 * {@link MAX_NESTING}: bodies, query strings and path parameters are checked before validation; multipart fields where the form is read
 * (`formParts`); uploaded documents by the code that parses them (`assertCarryableText`).
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const outside = findForbidden(request.params, 'params') ?? findForbidden(request.query, 'querystring');
    if (outside) return done(forbiddenCharacterError(outside, false));
    const found = findForbidden(request.body, '');
    done(found ? forbiddenCharacterError(found.path ? found : { ...found, path: 'body' }, found.path !== '') : undefined);
  });
}
