import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { type NewAuthorization, serializedJson } from './authorizations.repository.js';
import type { NewReference } from './entity-references.repository.js';

/** A granted authorization's rows, its serial numbers still to be known. */
export interface GrantRows {
  /** `serial_first`/`serial_last` are set from the order's row in the statement. */
  authorization: Omit<NewAuthorization, 'serial_first' | 'serial_last'>;
  references: NewReference[];
  audit: { actor: string; sourceIp: string; subject: string; details: Record<string, unknown> };
  /** Where its serial numbers start among the batch's (the quantities before it, summed: the grants' order). */
  serialOffset: number;
}

/** A string no audit detail holds, where `serialFirst` is put in by the statement. */
const SERIAL_MARK = '\u0000serialFirst\u0000';

/** PostgreSQL's one-statement authorize batch (see `takeInOneStatement`). */
export class AuthorizeBatchRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * PostgreSQL: takes the grants' summed quantity from the order and writes every row of `grants` in ONE statement (data-
   * modifying CTEs, committed on its own): the conditional UPDATE of `OrdersRepository.takeQuantity`,
   * then the authorizations, their references and their audit records built from its result, so
   * nothing is written when the order cannot give the sum. The order's row is locked only while
   * this one statement runs and commits. Answers whether the order gave it.
   */
  async takeInOneStatement(orderId: string, grants: GrantRows[], now: string, serialized: boolean): Promise<boolean> {
    const total = grants.reduce((sum, grant) => sum + grant.authorization.quantity, 0);
    // the JSON columns as the text every other path stores (jsonb would reorder an object's keys)
    const authorizations = JSON.stringify(
      grants.map((grant) => ({ ...serializedJson(grant.authorization), serial_offset: grant.serialOffset })),
    );
    const references = JSON.stringify(
      grants.flatMap((grant) =>
        grant.references.map(({ target, referrer, expiresAt }) => ({
          target_kind: target.kind,
          target_id: target.id,
          referrer_kind: referrer.kind,
          referrer_id: referrer.id,
          expires_at: expiresAt,
        })),
      ),
    );
    const audits = JSON.stringify(
      grants.map(({ audit, serialOffset }) => {
        const [head, tail] = JSON.stringify({ ...audit.details, serialFirst: SERIAL_MARK }).split(JSON.stringify(SERIAL_MARK));
        return { actor: audit.actor, source_ip: audit.sourceIp, subject: audit.subject, head, tail, serial_offset: serialOffset };
      }),
    );
    const serialTake = serialized ? sql`, serial_next = serial_next + ${total}::bigint` : sql``;
    const serialCheck = serialized ? sql`and serial_next + ${total}::bigint - 1 <= serial_end` : sql``;
    const first = serialized ? sql`serial_next - ${total}::bigint` : sql`null::bigint`;
    const result = await sql<{ first: string | null }>`
      with taken as (
        update orders set allocated = allocated + ${total}::integer, version = version + 1, updated_at = ${now} ${serialTake}
        where id = ${orderId} and revoked = 0 and allocated + expired_quantity + ${total}::integer <= quantity
          and (expires_at is null or expires_at > ${now}) ${serialCheck}
        returning ${first} as first
      ),
      granted as (
        select a.*, taken.first + a.serial_offset as serial_first
        from taken cross join jsonb_to_recordset(${authorizations}::jsonb) as a(
          id text, order_id text, version integer, target_kind text, device_id text, manage_id text, quantity integer,
          state text, expires_at text, authorized_users text, tracking text, device_parameters text,
          quality_parameters text, dsi_id text, company_name text, user_id text, archived integer,
          downstream_device_id text, created_by text, created_at text, sent_at text, received_at text, revoked_at text,
          updated_at text, serial_offset bigint)
      ),
      inserted as (
        insert into authorizations (id, order_id, version, target_kind, device_id, manage_id, quantity, state, expires_at,
          serial_first, serial_last, authorized_users, tracking, device_parameters, quality_parameters, dsi_id,
          company_name, user_id, archived, downstream_device_id, created_by, created_at, sent_at, received_at,
          revoked_at, updated_at)
        select id, order_id, version, target_kind, device_id, manage_id, quantity, state, expires_at,
          serial_first, serial_first + quantity - 1, authorized_users, tracking, device_parameters, quality_parameters,
          dsi_id, company_name, user_id, archived, downstream_device_id, created_by, created_at, sent_at, received_at,
          revoked_at, updated_at
        from granted
      ),
      referenced as (
        insert into entity_references (target_kind, target_id, referrer_kind, referrer_id, expires_at, released_at, created_at)
        select r.target_kind, r.target_id, r.referrer_kind, r.referrer_id, r.expires_at, null, ${now}
        from taken cross join jsonb_to_recordset(${references}::jsonb) as r(
          target_kind text, target_id text, referrer_kind text, referrer_id text, expires_at text)
      ),
      audited as (
        insert into audit_events (event_type, actor, subject, details, source_ip, created_at)
        select 'licenceAuthorized', e.actor, e.subject, e.head || coalesce((taken.first + e.serial_offset)::text, 'null') || e.tail,
          e.source_ip, ${now}
        from taken cross join jsonb_to_recordset(${audits}::jsonb) as e(
          actor text, source_ip text, subject text, head text, tail text, serial_offset bigint)
        order by e.serial_offset
      )
      select first from taken`.execute(this.db);
    return result.rows.length === 1;
  }
}
