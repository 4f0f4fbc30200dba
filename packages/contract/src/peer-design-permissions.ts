// Who may call the peer designs routes (the rows of `permissions.ts`), apart from the
// schemas in `peer-designs.ts`: the console's entry reads the rows, and needs none of those schemas.
export const peerDesignPermissions = {
  'POST /ui/das/transfer': 'admin',
  'POST /ui/dtl/transfer': 'admin',
  'POST /mpf/design': 'partner',
  'POST /fss/protect/register-request': 'partner',
  'POST /fss/protect/register': 'partner',
  'POST /fss/order': 'partner',
  'POST /fss/getUploadToken': 'partner',
  'POST /fss/delete': 'partner',
} as const;
