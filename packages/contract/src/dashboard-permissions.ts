// Who may call the dashboard routes (the rows of `permissions.ts`), apart from the
// schemas in `dashboard.ts`: the console's entry reads the rows, and needs none of those schemas.
export const dashboardPermissions = {
  // Manifold extension (docs/dashboard.md): the home screen's figures in one call
  'GET /ui/dashboard': 'anyRole',
} as const;
