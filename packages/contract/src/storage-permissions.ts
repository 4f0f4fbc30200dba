// Who may call the storage routes (the rows of `permissions.ts`), apart from the
// schemas in `storage.ts`: the console's entry reads the rows, and needs none of those schemas.
import type { PermissionRow } from './permissions.js';

/** Who may call the storage and DAS routes (spec §6: storage list/upload for both roles). */
export const storagePermissions = {
  'GET /ui/admin/storage/provider': 'admin',
  // changing where files live, with its credentials: an escalated session (docs/security-keys-and-access.md)
  'POST /ui/admin/storage/provider': { access: 'admin', sensitive: true, constraint: 'security-config' },
  'GET /ui/admin/storage/provider/list': 'admin',
  'GET /ui/admin/storage/type/list': 'admin',
  'POST /ui/admin/storage/type/list': 'admin',
  'GET /ui/admin/storage/type': 'admin',
  'GET /ui/storage/:type/list': 'anyRole',
  'POST /ui/storage/:type/upload': 'anyRole',
  'GET /ui/storage/:type/fetch/:filename': 'anyRole',
  'POST /ui/storage/dsi/upload': 'anyRole',
  'GET /ui/admin/das': 'anyRole',
  'POST /ui/admin/das': 'admin',
  // spec §6: DAS list/upload/transfer are admin only
  'POST /ui/das/upload': 'admin',
} as const satisfies Record<string, PermissionRow>;
