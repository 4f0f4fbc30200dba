// Who may call the server admin routes (the rows of `permissions.ts`), apart from the
// schemas in `server-admin.ts`: the console's entry reads the rows, and needs none of those schemas.
/** Spec §6: reading the server state is for both roles; everything else here is ADMIN. */
export const serverAdminPermissions = {
  'GET /ui/admin/server': 'anyRole',
  'POST /ui/admin/server': 'admin',
  'GET /ui/admin/addons': 'admin',
  'POST /ui/admin/addons': 'admin',
  'GET /ui/admin/licensing/status': 'admin',
  'POST /ui/admin/upload/licensing': 'admin',
  'GET /ui/admin/blockchain/provider': 'admin',
  'GET /ui/admin/blockchain/provider/list': 'admin',
} as const;
