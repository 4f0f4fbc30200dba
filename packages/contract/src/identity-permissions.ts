// Who may call the identity routes (the rows of `permissions.ts`), apart from the
// schemas in `identity.ts`: the console's entry reads the rows, and needs none of those schemas.
import type { PermissionRow } from './permissions.js';

/**
 * Settings that decide who may log in or call the API are `security-config`; adding trust
 * (identity provider settings and credentials, a new issuer, a new OAuth client) is sensitive (an
 * escalated session, docs/security-keys-and-access.md). Removing an issuer or a client is not:
 * revocation must never wait.
 */
export const identityPermissions = {
  'GET /ui/admin/sso': { access: 'admin', constraint: 'security-config' },
  'POST /ui/admin/sso/provider': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/admin/sso/delete': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'GET /ui/user/sso/providers': 'anonymous',
  'GET /ui/user/oidc/authenticate/:id': 'anonymous',
  'POST /ui/sessions': 'anonymous',
  'POST /ui/user/login/token': 'anonymous',
  'GET /ui/user/saml2/authenticate/:id': 'anonymous',
  'POST /ui/user/login/saml2/sso/:id': 'anonymous',
  'POST /ui/user/saml2/acs/:id': 'anonymous',
  'GET /ui/authentication/list': { access: 'admin', constraint: 'security-config' },
  'POST /ui/authentication/add': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/authentication/delete': { access: 'admin', constraint: 'security-config' },
  'GET /ui/client/list': { access: 'admin', constraint: 'security-config' },
  'POST /ui/client/add': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'POST /ui/client/delete': { access: 'admin', constraint: 'security-config' },
  'POST /oauth2/token': 'anonymous',
} as const satisfies Record<string, PermissionRow>;
