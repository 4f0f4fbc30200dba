import { type Kysely, sql } from 'kysely';
import type { TAuditEntry, TAuditEventType, TPage, TPageQuery } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import { paginateAnchored, WHOLE_TABLE } from '../../db/anchored-paging.js';
import { WriteSet } from '../../db/write-set.js';
import type { AuditEventsTable, DB } from '../../db/schema.js';
import type { Caller } from '../../lib/caller.js';
import type { Selectable } from 'kysely';
import { isoNow } from '../../lib/time.js';

export interface AuditRecord {
  type: TAuditEventType;
  /** Who acted: a username, or null for the system itself. */
  actor: string | null;
  /** What it was done to, e.g. a username or a group name. */
  subject?: string | null;
  details?: Record<string, unknown>;
  sourceIp?: string | null;
}

interface AuditFilter {
  kind?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  actor?: string | undefined;
  subject?: string | undefined;
}

/** The audit list is counted (migration 033) whole; a filtered one counts its rows once per generation. */
function countedAuditKey(filter: AuditFilter): { counted?: string[] } {
  return filter.kind || filter.from || filter.to || filter.actor || filter.subject ? {} : { counted: [WHOLE_TABLE] };
}

/** Rows per multi-row insert: 6 columns each, far below every database's limit of bound values. */
const AUDIT_ROWS_PER_INSERT = 1000;

function auditRow(event: AuditRecord, now: string) {
  return {
    event_type: event.type,
    actor: event.actor,
    subject: event.subject ?? null,
    details: event.details ? JSON.stringify(event.details) : null,
    source_ip: event.sourceIp ?? null,
    created_at: now,
  };
}

const AUDIT_COLUMNS = ['event_type', 'actor', 'subject', 'details', 'source_ip', 'created_at'] as const;

/** Several records, in this order, added to the writes of the transaction of the change they describe. */
export function recordManyWith(writes: WriteSet, events: AuditRecord[]): void {
  const now = isoNow();
  for (let start = 0; start < events.length; start += AUDIT_ROWS_PER_INSERT) {
    writes.insert(
      'audit_events',
      AUDIT_COLUMNS,
      events.slice(start, start + AUDIT_ROWS_PER_INSERT).map((event) => auditRow(event, now)),
    );
  }
}

/** Audit records are written with the change they describe, in the same transaction. */
export class AuditRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  async record(event: AuditRecord): Promise<void> {
    await this.dialect.insertId(this.db, 'audit_events', auditRow(event, isoNow()));
  }

  /** Several records at once, in this order (multi-row inserts of at most {@link AUDIT_ROWS_PER_INSERT}). */
  async recordMany(events: AuditRecord[]): Promise<void> {
    const writes = new WriteSet(this.db, this.dialect.kind);
    recordManyWith(writes, events);
    await writes.flush();
  }

  /** A change made by a signed-in caller. */
  recordBy(
    caller: Pick<Caller, 'username' | 'sourceIp'>,
    type: TAuditEventType,
    subject: string,
    details?: Record<string, unknown>,
  ): Promise<void> {
    return this.record({ type, actor: caller.username, subject, sourceIp: caller.sourceIp, ...(details ? { details } : {}) });
  }

  /** The newest `limit` audit records of these subjects, newest first, and whether there are older ones. */
  async history(subjects: string[], limit: number): Promise<{ entries: TAuditEntry[]; truncated: boolean }> {
    const rows = await this.db
      .selectFrom('audit_events')
      .select(['event_type', 'actor', 'subject', 'details', 'created_at'])
      .where('subject', 'in', subjects)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      // one more than asked: whether older records exist, without counting them
      .limit(limit + 1)
      .execute();
    const entries = rows.slice(0, limit).map((row) => ({
      eventType: row.event_type,
      actor: row.actor,
      subject: row.subject,
      details: row.details ? (JSON.parse(row.details) as unknown) : null,
      dateCreated: row.created_at,
    }));
    return { entries, truncated: rows.length > limit };
  }

  /**
   * Every audit record, newest first, filtered by kind, time (`from` inclusive, `to` exclusive,
   * ISO-8601 UTC), actor and subject (exact). Records are only ever added: nothing here or
   * anywhere else changes or deletes one.
   */
  list(page: TPageQuery, filter: AuditFilter): Promise<TPage<Selectable<AuditEventsTable>>> {
    let base = this.db.selectFrom('audit_events');
    if (filter.kind) base = base.where('audit_events.event_type', '=', filter.kind);
    if (filter.from) base = base.where('audit_events.created_at', '>=', filter.from);
    if (filter.to) base = base.where('audit_events.created_at', '<', filter.to);
    if (filter.actor) base = base.where('audit_events.actor', '=', filter.actor);
    if (filter.subject) base = base.where('audit_events.subject', '=', filter.subject);
    return paginateAnchored(
      this.db,
      { key: JSON.stringify(['audit_events', filter]), tables: ['audit_events'], readByKey: true, ...countedAuditKey(filter) },
      base,
      { value: sql.ref('audit_events.created_at'), id: sql.ref('audit_events.id'), direction: 'desc' },
      page,
      (from) => from.selectAll(),
      (rows) => rows,
    );
  }
}
