import type { QueryClient } from '@tanstack/react-query';
import { sessionQueryKey } from '../lib/session';

/** Puts a logged-in ADMIN's session (time zone UTC, English) in the client's cache, as `user/login` would. */
export function seedAdminSession(client: QueryClient): QueryClient {
  client.setQueryData(sessionQueryKey, {
    userProfile: {
      username: 'admin',
      firstName: 'Ada',
      lastName: 'Admin',
      email: 'admin@example.com',
      company: null,
      role: 'ADMIN',
      timeZone: 'UTC',
      language: 'en_US',
      useSso: false,
    },
    escalated: false,
  });
  return client;
}
