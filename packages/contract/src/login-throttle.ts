import { z } from 'zod';

/** One failed-login counter an administrator can see and clear (`GET /ui/admin/login-throttle`). */
export const ZLoginThrottleEntry = z
  .object({
    key: z.string(),
    /** `pair`: one address on one account; `ip`: one address on any account; `user`: one account from anywhere. */
    kind: z.enum(['pair', 'ip', 'user']),
    username: z.string().nullable(),
    sourceIp: z.string().nullable(),
    failures: z.number().int(),
    windowStart: z.string(),
    /** No password is checked for this key before this time (null: not held back). */
    notBefore: z.string().nullable(),
  })
  .meta({ id: 'LoginThrottleEntry' });
export type TLoginThrottleEntry = z.infer<typeof ZLoginThrottleEntry>;

export const ZLoginThrottleClearRequest = z.object({ key: z.string().min(1).max(200) }).meta({ id: 'LoginThrottleClearRequest' });
export type TLoginThrottleClearRequest = z.infer<typeof ZLoginThrottleClearRequest>;
