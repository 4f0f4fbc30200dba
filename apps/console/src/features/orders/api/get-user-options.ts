import { ZPage, ZUserProfile } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const ZUserPage = ZPage(ZUserProfile);

/** Usernames an authorization may name as authorized users (the list's largest page). */
export function userOptionsQueryOptions() {
  const query = { pageNum: 1, numberOfItems: 500 };
  return queryOptions({
    queryKey: ['users', 'list', query],
    queryFn: ({ signal }) => apiRequest('GET /ui/user/list', ZUserPage, { query, signal }),
  });
}

export function useUserOptions() {
  return useQuery(userOptionsQueryOptions());
}
