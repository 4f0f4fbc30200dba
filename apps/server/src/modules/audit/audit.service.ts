import { auditEventText, type TAuditEventType, type TAuditListEntry, type TAuditListQuery, type TPage } from '@manifold/contract';
import type { Database } from '../../db/database.js';
import { AuditRepository } from './audit.repository.js';

/** The audit trail as users read it (`GET /ui/audit/list`); there is no call that changes it. */
export class AuditService {
  constructor(private readonly database: Database) {}

  async list(query: TAuditListQuery): Promise<TPage<TAuditListEntry>> {
    const { kind, from, to, actor, subject, ...page } = query;
    const found = await new AuditRepository(this.database.db, this.database.dialect).list(page, {
      kind,
      // stored times are ISO-8601 UTC of fixed width: compare like with like
      from: from && new Date(from).toISOString(),
      to: to && new Date(to).toISOString(),
      actor,
      subject,
    });
    return {
      ...found,
      data: found.data.map((row) => ({
        id: Number(row.id),
        eventType: row.event_type,
        text: auditEventText[row.event_type as TAuditEventType] ?? row.event_type,
        actor: row.actor,
        subject: row.subject,
        details: row.details ? (JSON.parse(row.details) as unknown) : null,
        sourceIp: row.source_ip,
        dateCreated: row.created_at,
      })),
    };
  }
}
