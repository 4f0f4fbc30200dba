import { ZGroup, ZPage } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const ZGroupPage = ZPage(ZGroup);

/** Every group (the list's largest page), to choose who shares an order. */
export function groupOptionsQueryOptions() {
  return queryOptions({
    queryKey: ['groups', 'list', { pageNum: 1, numberOfItems: 500 }],
    queryFn: ({ signal }) => apiRequest('GET /ui/groups/list', ZGroupPage, { query: { pageNum: 1, numberOfItems: 500 }, signal }),
  });
}

export function useGroupOptions(enabled: boolean) {
  return useQuery({ ...groupOptionsQueryOptions(), enabled });
}
