// Who may call the trace routes (the rows of `permissions.ts`), apart from the
// schemas in `trace.ts`: the console's entry reads the rows, and needs none of those schemas.
/**
 * Spec §6: event list and upload for both roles, part list ADMIN only. The spec gives builds no
 * row: like events, both roles. The audit trail is administration (ADMIN). Machines report events
 * as signed requests (`partner`: each checks its own signature).
 */
export const tracePermissions = {
  'POST /apl/event': 'partner',
  'POST /stp/event': 'partner',
  'POST /ui/event/upload': 'anyRole',
  'GET /ui/event/export': 'anyRole',
  'GET /ui/event/list': 'anyRole',
  'GET /ui/build/list': 'anyRole',
  'GET /ui/part/list': 'admin',
  'GET /ui/part/history': 'admin',
  // EPCIS 2.0 exports: a part's history as the part's history, an event search as the event list
  'GET /ui/part/epcis': 'admin',
  'GET /ui/event/epcis': 'anyRole',
  // machine data: a machine with its upload token; spec §6 storage upload for both roles
  'POST /mpf/dtl': 'partner',
  'POST /ui/storage/dtl/upload': 'anyRole',
  'GET /ui/audit/list': { access: 'admin', constraint: 'audit-access' },
} as const;
