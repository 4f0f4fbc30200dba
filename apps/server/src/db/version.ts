import { type RawBuilder, sql } from 'kysely';

/**
 * The one way a row's `version` moves on: `version + 1`, computed by the database in the same
 * statement that changes the row (optimistic versioning and concurrent updates alike).
 */
export function nextVersion(): RawBuilder<number> {
  return sql<number>`version + 1`;
}
