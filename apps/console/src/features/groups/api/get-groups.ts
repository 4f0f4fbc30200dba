import { ZGroup, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

export const ZGetGroupsInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
});
export type GetGroupsInput = z.infer<typeof ZGetGroupsInput>;

const ZGroupPage = ZPage(ZGroup);

export function getGroups(input: GetGroupsInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/groups/list', ZGroupPage, { query: ZGetGroupsInput.parse(input), signal });
}

export function groupsQueryOptions(input: GetGroupsInput) {
  return pagedListQueryOptions(['groups', 'list', input], (signal) => getGroups(input, signal));
}

export function useGroups(input: GetGroupsInput) {
  return useQuery(groupsQueryOptions(input));
}
