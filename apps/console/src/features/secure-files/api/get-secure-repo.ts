import { ZGroup, ZPage, ZSecureRepoListResponse } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

/** Every query of this screen starts with this key: a change invalidates them all. */
export const secureRepoKey = ['secure-repo'] as const;

export const ZSecureRepoListInput = z.object({
  /** The folder; absent: the top level. */
  nodeId: z.string().optional(),
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
});
export type SecureRepoListInput = z.infer<typeof ZSecureRepoListInput>;

export function getSecureRepo(input: SecureRepoListInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/secure-repo/list', ZSecureRepoListResponse, { query: ZSecureRepoListInput.parse(input), signal });
}

export function secureRepoListQueryOptions(input: SecureRepoListInput) {
  return pagedListQueryOptions([...secureRepoKey, 'list', input], (signal) => getSecureRepo(input, signal));
}

export function useSecureRepoList(input: SecureRepoListInput) {
  return useQuery(secureRepoListQueryOptions(input));
}

const ZGroupPage = ZPage(ZGroup);

/** The names of the groups (for the "shared with" badges): the first 500, by name. */
export function useGroupNames() {
  return useQuery(
    queryOptions({
      queryKey: [...secureRepoKey, 'group-names'],
      queryFn: async ({ signal }) => {
        const page = await apiRequest('GET /ui/groups/list', ZGroupPage, { query: { pageNum: 1, numberOfItems: 500 }, signal });
        return new Map(page.data.map((group) => [group.userGroupId, group.name]));
      },
    }),
  );
}
