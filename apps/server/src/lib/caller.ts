import type { TRole } from '@manifold/contract';
import type { UserProfileRow } from '../modules/users/users.repository.js';

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
  /** The user's profile columns (never the password hash). */
  user: UserProfileRow;
  /**
   * Set when the caller presented an API token instead of a session token: an OAuth client's
   * access token (`client`) or a trusted issuer's JWT (`issuer`); `sessionId` then names the
   * token, not a row of `sessions`. Absent for sessions. (docs/identity.md)
   */
  via?: 'client' | 'issuer';
}
