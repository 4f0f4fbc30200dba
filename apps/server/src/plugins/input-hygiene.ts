import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error.js';
import { hasXmlForbidden } from '../lib/xml-text.js';

const MAX_DEPTH = 32;

export type Forbidden = { path: string; nul: boolean };

/** Whether any string (or key) down to {@link MAX_DEPTH} holds a character XML cannot carry (NUL among them). */
function holdsForbidden(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return hasXmlForbidden(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsForbidden(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (hasXmlForbidden(key) || holdsForbidden((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * The first string (or key) holding NUL or another character XML cannot carry, with its path. A
 * clean value (nearly every one) is walked once without writing any path.
 */
export function findForbidden(value: unknown, path: string, depth = 0): Forbidden | null {
  return holdsForbidden(value, depth) ? locateForbidden(value, path, depth) : null;
}

function locateForbidden(value: unknown, path: string, depth: number): Forbidden | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path, nul: true };
    return hasXmlForbidden(value) ? { path, nul: false } : null;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [key, item] of Object.entries(value)) {
    const where = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    const inKey = locateForbidden(key, where, MAX_DEPTH);
    if (inKey) return inKey;
    const found = locateForbidden(item, where, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * NUL is malformed input (400; databases refuse or cut it); other characters XML cannot carry
 * answer 420 `invalidCharacters` naming the field, before anything changes.
 */
export function forbiddenCharacterError(found: Forbidden): AppError {
  return found.nul
    ? new AppError('malformedRequest', { description: `${found.path} contains a NUL character` })
    : new AppError('invalidCharacters', { field: found.path });
}

/** Throws when `value` holds a forbidden character (for content read by a route itself, e.g. an uploaded JSON file). */
export function assertCarryableText(value: unknown, path = ''): void {
  const found = findForbidden(value, path);
  if (found) throw forbiddenCharacterError(found);
}

/**
 * No string anywhere accepts NUL or characters XML cannot carry: bodies, query strings and path
 * parameters are checked before validation; multipart fields where the form is read
 * (`formParts`); uploaded documents by the code that parses them (`assertCarryableText`).
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const found =
      findForbidden(request.params, 'params') ?? findForbidden(request.query, 'querystring') ?? findForbidden(request.body, '');
    done(found ? forbiddenCharacterError(found.path ? found : { ...found, path: 'body' }) : undefined);
  });
}
