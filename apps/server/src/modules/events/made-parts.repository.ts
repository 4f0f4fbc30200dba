import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { PartsTable } from '../../db/schema-trace.js';

/** The states a job's end gives its parts (docs/breakage-policy.md). */
const MADE_STATES = ['MANUFACTURED', 'NO_QMS_STEP'] as const;

/**
 * Whether a part was made: its job ended (`MANUFACTURED` or `NO_QMS_STEP`). An inspection does not
 * unmake it: a part that failed inspection is `FAILURE` like a failed job's parts, yet it holds its
 * serial number and used its unit. Only made parts are inspected, so an inspection result marks one.
 */
export function wasMade(part: Pick<PartsTable, 'qms_state' | 'inspection_result'>): boolean {
  return part.inspection_result !== null || (MADE_STATES as readonly string[]).includes(part.qms_state);
}

/** `wasMade` in SQL, for a query over `parts`. */
export function madePart(eb: ExpressionBuilder<DB, 'parts'>) {
  return eb.or([eb('parts.qms_state', 'in', MADE_STATES), eb('parts.inspection_result', 'is not', null)]);
}

/** The parts made under an authorization: the units it has used (its serial numbers handed out). */
export async function countMadeParts(db: Kysely<DB>, authorizationId: string): Promise<number> {
  const row = await db
    .selectFrom('parts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('authorization_id', '=', authorizationId)
    .where(madePart)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
