import type { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { identifierErrors } from '../../lib/identifier-errors.js';
import { parseCarryableJson } from '../../plugins/input-hygiene.js';

/**
 * A JSON object sent as one multipart field, parsed with its contract schema: malformed
 * identifiers answer their tokens (like JSON bodies), characters a body may not hold what they
 * answer there (`parseCarryableJson`), anything else 400 naming the field.
 */
export function parseFormJson<T extends z.ZodType>(schema: T, text: string, field: string): z.infer<T> {
  const json = parseCarryableJson(
    text,
    field,
    () => new AppError('malformedRequest', { field, description: `${field}: not JSON` }),
  );
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const identifiers = identifierErrors(
    schema,
    parsed.error.issues.map((issue) => issue.path),
  );
  if (identifiers) throw identifiers;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.length > 0 ? issue.path.map(String).join('.') : field;
  throw new AppError('malformedRequest', { field: at, description: `${at}: ${issue.message}` });
}
