// Who may call the security routes (the rows of `permissions.ts`), apart from the
// schemas in `security.ts`: the console's entry reads the rows, and needs none of those schemas.
import type { PermissionRow } from './permissions.js';

export const securityPermissions = {
  // security keys: every user manages their own
  'GET /ui/authenticators/list': 'anyRole',
  'POST /ui/authenticators/attestation-options/generate': 'anyRole',
  'POST /ui/authenticators/add': 'anyRole',
  'POST /ui/authenticators/delete': { access: 'anyRole', sensitive: true },
  'POST /ui/authenticators/assertion-options/generate': 'anyRole',
  'POST /ui/authenticators/escalate-login': 'anyRole',
  // whether every administrator must escalate (turning it off is itself a sensitive action)
  'GET /ui/admin/escalation': { access: 'admin', constraint: 'security-config' },
  'POST /ui/admin/escalation': { access: 'admin', sensitive: true, constraint: 'security-config' },
  // access controls (server-backed; the spec's own console kept them as a browser mock)
  'GET /ui/access-control/list': { access: 'admin', constraint: 'security-config' },
  'POST /ui/access-control/add': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/access-control/edit': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/access-control/delete': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'GET /ui/access-role/list': { access: 'admin', constraint: 'security-config' },
  'POST /ui/access-role/add': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/access-role/edit': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/access-role/delete': { access: 'admin', sensitive: true, constraint: 'security-config' },
} as const satisfies Record<string, PermissionRow>;
