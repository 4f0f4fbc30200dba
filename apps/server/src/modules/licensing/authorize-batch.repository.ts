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
   * modifying CTEs, committed on its own): the grants' machines and Manage instances read again
   * with a shared lock (`FOR SHARE`: a machine's delete, approval or disabling waits for this
   * statement, or this statement for it, and then finds its rows gone or changed), then the
   * conditional UPDATE of `OrdersRepository.takeQuantity` — only when every target is still there
   * as the rules saw it (approved, not disabled; a downstream instance approved) —, then the
   * authorizations, their references and their audit records built from its result, so nothing is
   * written when a target went or the order cannot give the sum. The order's row and the targets'
   * are locked only while this one statement runs and commits. Answers whether the order gave
   * it, and whether every target was held (when not, the order was not asked).
   */
  async takeInOneStatement(
    orderId: string,
    grants: GrantRows[],
    now: string,
    serialized: boolean,
  ): Promise<{ taken: boolean; targetsHeld: boolean }> {
    const total = grants.reduce((sum, grant) => sum + grant.authorization.quantity, 0);
    const deviceIds = [...new Set(grants.flatMap(({ authorization }) => authorization.device_id ?? []))];
    const manageIds = [...new Set(grants.flatMap(({ authorization }) => authorization.manage_id ?? []))];
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
    const result = await sql<{ taken: boolean; held: boolean }>`
      with machines as materialized (
        select id from devices
        where id = any(${deviceIds}::text[]) and registration_state = 'Approved' and disabled = 0
        for share
      ),
      peers as materialized (
        select id from manage_instances
        where id = any(${manageIds}::text[]) and manage_type = 'downStreamManage' and registration_state = 'Approved'
        for share
      ),
      held as (
        select (select count(*) from machines) + (select count(*) from peers) = ${deviceIds.length + manageIds.length}::bigint as ok
      ),
      taken as (
        update orders set allocated = allocated + ${total}::integer, version = version + 1, updated_at = ${now} ${serialTake}
        where id = ${orderId} and revoked = 0 and allocated + expired_quantity + ${total}::integer <= quantity
          and (expires_at is null or expires_at > ${now}) ${serialCheck} and (select ok from held)
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
      select exists (select from taken) as taken, (select ok from held) as held`.execute(this.db);
    const row = result.rows[0]!;
    return { taken: row.taken, targetsHeld: row.held };
  }
}
