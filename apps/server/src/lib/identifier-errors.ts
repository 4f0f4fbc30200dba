import type { z } from 'zod';
import { identifierAt } from '@manifold/contract';
import { AppError, AppErrors } from './app-error.js';

/**
 * Spec §8 for malformed identifiers: when every fault of a request part lies in an identifier
 * field (contract `ZId`), the answer is that identifier's token naming the field — one as 420,
 * several as 418 — not 400 `malformedRequest`. Answers undefined when any fault lies elsewhere
 * (the request is then malformed as a whole).
 */
export function identifierErrors(
  schema: z.ZodType,
  paths: readonly (readonly PropertyKey[])[],
  base = '',
): AppError | AppErrors | undefined {
  if (paths.length === 0) return undefined;
  const errors = new Map<string, AppError>();
  for (const path of paths) {
    const identifier = identifierAt(schema, path, base);
    if (!identifier) return undefined;
    if (!errors.has(identifier.field)) errors.set(identifier.field, new AppError(identifier.token, { field: identifier.field }));
  }
  const all = [...errors.values()];
  return all.length === 1 ? all[0] : new AppErrors(all);
}
