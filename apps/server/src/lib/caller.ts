import type { TRole } from '@manifold/contract';
import type { UserRow } from '../db/schema.js';

/** Who is calling: the session's user, resolved once per request by the auth plugin. */
export interface Caller {
  userId: number;
  username: string;
  role: TRole;
  sessionId: string;
  /** A security-key assertion within the escalation time (`escalatedUntil`, ISO UTC) confirmed this session. */
  escalated: boolean;
  escalatedUntil: string | null;
  sourceIp: string;
  user: UserRow;
}
