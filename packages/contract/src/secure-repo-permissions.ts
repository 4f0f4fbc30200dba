// Who may call the secure repo routes (the rows of `permissions.ts`), apart from the
// schemas in `secure-repo.ts`: the console's entry reads the rows, and needs none of those schemas.
/**
 * Every call needs a session; which nodes a USER may see and touch (those shared with one of
 * their groups) is decided in the service. Creating and deleting top-level folders and changing
 * a folder's groups are ADMIN decisions, also checked there (403 `actionNotAllowed`).
 */
export const secureRepoPermissions = {
  'GET /ui/secure-repo/list': 'anyRole',
  'POST /ui/secure-repo/create-folder': 'anyRole',
  'POST /ui/secure-repo/upload': 'anyRole',
  'POST /ui/secure-repo/edit-file': 'anyRole',
  'POST /ui/secure-repo/delete': 'anyRole',
  'GET /ui/secure-repo/download': 'anyRole',
} as const;
