import type { TRole } from './enums.js';
import { licensingPermissions } from './licensing-tokens.js';
import { packagePermissions } from './package-tokens.js';
import { storagePermissions } from './storage-permissions.js';
import { serverAdminPermissions } from './server-admin-permissions.js';
import { securityPermissions } from './security-permissions.js';
import type { TAccessConstraint } from './security.js';
import { tracePermissions } from './trace-permissions.js';
import { qualityPermissions } from './quality-tokens.js';
import { identityPermissions } from './identity-permissions.js';
import { secureRepoPermissions } from './secure-repo-permissions.js';
import { dashboardPermissions } from './dashboard-permissions.js';
import { peerDesignPermissions } from './peer-design-permissions.js';

/**
 * Who may call what (spec §6). One row per route the server serves; the server refuses to start
 * with a route that has no row, and the console hides what a role may not use.
 *
 * - `anonymous`: no session needed (login, session start, admin state, operator probes).
 * - `anyRole`: a valid session, USER or ADMIN.
 * - `admin`: a valid ADMIN session.
 * - `partner`: partner interfaces between server components; each checks its own signature.
 */
export type Access = 'anonymous' | 'anyRole' | 'admin' | 'partner';

/**
 * A row that asks more than a role (docs/security-keys-and-access.md):
 * - `sensitive`: the session must be escalated (a security-key assertion within the escalation
 *   time) when the caller has a security key, or, with `ESCALATION_REQUIRED_FOR_ADMINS`, is ADMIN;
 *   refused 403 `escalationRequired`.
 * - `constraint`: the access controls must allow the caller this constraint from their address;
 *   refused 403 `accessConstraintFailed` naming it (audited).
 */
export interface GuardedAccess {
  access: Access;
  sensitive?: true;
  constraint?: TAccessConstraint;
}
export type PermissionRow = Access | GuardedAccess;

export const permissions = {
  ...packagePermissions,
  ...licensingPermissions,
  ...tracePermissions,
  ...storagePermissions,
  ...qualityPermissions,
  ...serverAdminPermissions,
  ...identityPermissions,
  ...securityPermissions,
  ...secureRepoPermissions,
  ...dashboardPermissions,
  ...peerDesignPermissions,
  // operators
  'GET /healthz': 'anonymous',
  // the handler checks METRICS_TOKEN (docs/operations.md)
  'GET /metrics': 'anonymous',
  // the console: its files, deep links and runtime settings (site name, public address)
  'GET /*': 'anonymous',
  'GET /console-config.json': 'anonymous',
  'GET /readyz': 'anonymous',
  // session
  'POST /ui/user/login': 'anonymous',
  'GET /ui/user/login': 'anyRole',
  'POST /ui/user/refresh': 'anyRole',
  'POST /ui/user/logout': 'anyRole',
  'GET /ui/admin/login-throttle': { access: 'admin', constraint: 'security-config' },
  'POST /ui/admin/login-throttle/clear': { access: 'admin', constraint: 'security-config' },
  // users and groups
  'GET /ui/user/list': 'anyRole',
  'GET /ui/user/roles': 'anyRole',
  'POST /ui/user/add': { access: 'admin', constraint: 'user-management' },
  'POST /ui/user/edit': 'anyRole',
  'POST /ui/user/delete': { access: 'admin', sensitive: true, constraint: 'user-management' },
  'GET /ui/groups/list': 'anyRole',
  'POST /ui/groups/add': { access: 'admin', constraint: 'user-management' },
  'POST /ui/groups/edit': { access: 'admin', constraint: 'user-management' },
  'POST /ui/groups/delete': { access: 'admin', constraint: 'user-management' },
  // admin
  'GET /ui/admin/state': 'anonymous',
  'GET /ui/version': 'anyRole',
  'GET /ui/admin/database': 'admin',
  'POST /ui/admin/database': 'admin',
  'GET /ui/admin/api-spec': 'admin',
  'GET /ui/admin/jobs': 'admin',
  'GET /ui/admin/outbox': 'admin',
  'POST /ui/admin/outbox/retry': 'admin',
  'GET /ui/admin/event': 'anyRole',
  'POST /ui/admin/event': 'admin',
  'GET /ui/queue/list': 'anyRole',
  'GET /ui/queue/download': 'anyRole',
  'POST /ui/queue/send': 'admin',
  'POST /ui/queue/delete': 'admin',
  // unimplemented in the spec (§7): answer 501 functionNotImplemented
  'POST /ui/admin/sso': 'admin',
  'POST /ui/admin/blockchain/provider': 'admin',
  'GET /ui/qms/search': 'anyRole',
  'GET /ui/qms/parts/list': 'anyRole',
  'GET /ui/qms/data': 'anyRole',
  'GET /ui/qms/failed': 'anyRole',
  'GET /ui/qms/results': 'anyRole',
  'POST /ui/qms/parts/entry': 'anyRole',
  // keys and certificates
  // re-keying and installing certificates are sensitive (an escalated session)
  'POST /ui/admin/provision': { access: 'admin', sensitive: true },
  'GET /ui/admin/provision': 'admin',
  'POST /ui/admin/upload/provision': { access: 'admin', sensitive: true },
  'GET /ui/admin/provision/certificates': 'admin',
  'POST /ui/admin/provision/development-ca': { access: 'admin', sensitive: true },
  // peer registrations (spec §6: manage list for both roles; add, delete, approve ADMIN)
  'GET /ui/manage/list': 'anyRole',
  'POST /ui/manage/add': 'admin',
  'POST /ui/manage/delete': 'admin',
  'POST /ui/manage/approve': 'admin',
  // trace list, add, approve, delete: both roles (spec §6)
  'GET /ui/trace/list': 'anyRole',
  'POST /ui/trace/add': 'anyRole',
  'POST /ui/trace/delete': 'anyRole',
  'POST /ui/trace/approve': 'anyRole',
  // a machine that cannot reach the server registers from its APL file (ADMIN, like device approval)
  'POST /ui/enforce/apl/upload': 'admin',
  // protect: admin (spec §6 "protect-related admin calls")
  'POST /ui/protect/tokens': 'admin',
  'GET /ui/protect/list': 'admin',
  'POST /ui/protect/delete': 'admin',
  'POST /ui/protect/approve': 'admin',
  // partner interfaces
  'POST /certificate/certificateChain': 'partner',
  'POST /apl/registration/update': 'partner',
  'POST /apl/peer/message': 'partner',
  'POST /apl/registration/delete': 'partner',
  'POST /apl/registration/status': 'partner',
  'GET /apl/registration/status': 'partner',
} as const satisfies Record<string, PermissionRow>;

export type RouteKey = keyof typeof permissions;

function rowOf(key: string): PermissionRow | undefined {
  return (permissions as Record<string, PermissionRow>)[key];
}

export function accessOf(key: string): Access | undefined {
  const row = rowOf(key);
  return typeof row === 'object' ? row.access : row;
}

/** What a route asks beyond its role: escalation and an access-control constraint. */
export function guardOf(key: string): { sensitive: boolean; constraint: TAccessConstraint | undefined } {
  const row = rowOf(key);
  if (typeof row !== 'object') return { sensitive: false, constraint: undefined };
  return { sensitive: row.sensitive === true, constraint: row.constraint };
}

/** Whether a caller with this role (undefined: no session) may call the route. */
export function canCall(role: TRole | undefined, key: RouteKey): boolean {
  const access = accessOf(key);
  switch (access) {
    case 'anonymous':
    case 'partner':
      return true;
    case 'anyRole':
      return role !== undefined;
    case 'admin':
      return role === 'ADMIN';
    case undefined:
      return false;
  }
}
