import { ZPage, ZUserProfile, displayName } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const ZUserPage = ZPage(ZUserProfile);
/** The largest page the server gives; groups pick members among these users. */
export const memberOptionLimit = 500;

export async function getMemberOptions(signal?: AbortSignal) {
  const page = await apiRequest('GET /ui/user/list', ZUserPage, {
    query: { pageNum: 1, numberOfItems: memberOptionLimit },
    signal,
  });
  return {
    options: page.data.map((user) => ({ value: user.username, label: `${displayName(user)} (${user.username})` })),
    truncated: page.totalNumOfItems > page.data.length,
  };
}

export function memberOptionsQueryOptions() {
  return queryOptions({ queryKey: ['groups', 'member-options'], queryFn: ({ signal }) => getMemberOptions(signal) });
}

export function useMemberOptions() {
  return useQuery(memberOptionsQueryOptions());
}
