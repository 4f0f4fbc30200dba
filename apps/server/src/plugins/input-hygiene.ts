import type { FastifyInstance } from 'fastify';

const MAX_DEPTH = 32;

/** The path of the first string (or key) holding a NUL character, or null. */
export function findNul(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [key, item] of Object.entries(value)) {
    const where = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (key.includes('\u0000')) return where;
    const found = findNul(item, where, depth + 1);
    if (found) return found;
  }
  return null;
}

export const nulDescription = (where: string): string => `${where} contains a NUL character`;

/**
 * No string anywhere accepts NUL: databases refuse it (PostgreSQL text) or cut it, and no name,
 * note or value needs it. Bodies, query strings and path parameters are checked before
 * validation; multipart fields where the form is read (`formParts`).
 */
export function registerInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    const where = findNul(request.params, 'params') ?? findNul(request.query, 'querystring') ?? findNul(request.body, 'body');
    if (where) return reply.status(400).send({ errorToken: 'malformedRequest', errorDescription: nulDescription(where) });
  });
}
