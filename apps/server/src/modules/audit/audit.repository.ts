import type { Kysely } from 'kysely';
import type { TAuditEntry, TAuditEventType } from '@manifold/contract';
import type { Dialect } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { Caller } from '../../lib/caller.js';
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

/** Audit records are written with the change they describe, in the same transaction. */
export class AuditRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: Dialect,
  ) {}

  async record(event: AuditRecord): Promise<void> {
    await this.dialect.insertId(this.db, 'audit_events', {
      event_type: event.type,
      actor: event.actor,
      subject: event.subject ?? null,
      details: event.details ? JSON.stringify(event.details) : null,
      source_ip: event.sourceIp ?? null,
      created_at: isoNow(),
    });
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

  /** The audit records of these subjects, newest first (at most 1000). */
  async history(subjects: string[]): Promise<TAuditEntry[]> {
    const rows = await this.db
      .selectFrom('audit_events')
      .select(['event_type', 'actor', 'subject', 'details', 'created_at'])
      .where('subject', 'in', subjects)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1000)
      .execute();
    return rows.map((row) => ({
      eventType: row.event_type,
      actor: row.actor,
      subject: row.subject,
      details: row.details ? (JSON.parse(row.details) as unknown) : null,
      dateCreated: row.created_at,
    }));
  }
}
