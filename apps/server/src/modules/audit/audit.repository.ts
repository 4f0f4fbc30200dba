import type { Kysely } from 'kysely';
import type { TAuditEventType } from '@manifold/contract';
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
}
