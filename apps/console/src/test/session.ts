import type { TUserProfile } from '@manifold/contract';
import type { QueryClient } from '@tanstack/react-query';
import { sessionQueryKey } from '../lib/session';

/** The logged-in ADMIN of {@link seedAdminSession} (time zone UTC, English). */
export const adminProfile: TUserProfile = {
  username: 'admin',
  firstName: 'Ada',
  lastName: 'Admin',
  email: 'admin@example.com',
  company: null,
  role: 'ADMIN',
  timeZone: 'UTC',
  language: 'en_US',
  useSso: false,
  dateCreated: '2026-01-01T00:00:00.000Z',
};

/** Puts a logged-in ADMIN's session (time zone UTC, English) in the client's cache, as `user/login` would. */
export function seedAdminSession(client: QueryClient): QueryClient {
  client.setQueryData(sessionQueryKey, { userProfile: adminProfile, escalated: false });
  return client;
}
