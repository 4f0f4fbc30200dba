import { ZPage, ZUserProfile } from '@manifold/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { taggedMeta } from '../../../lib/query-tags';

export const ZGetUsersInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  search: z.string().optional(),
});
export type GetUsersInput = z.infer<typeof ZGetUsersInput>;

const ZUserPage = ZPage(ZUserProfile);

export function getUsers(input: GetUsersInput, signal?: AbortSignal) {
  const { search, ...paging } = ZGetUsersInput.parse(input);
  return apiRequest('GET /ui/user/list', ZUserPage, { query: { ...paging, search: search || null }, signal });
}

export function usersQueryOptions(input: GetUsersInput) {
  return queryOptions({
    queryKey: ['users', 'list', input],
    queryFn: ({ signal }) => getUsers(input, signal),
    placeholderData: keepPreviousData,
    meta: taggedMeta('users'),
  });
}

export function useUsers(input: GetUsersInput) {
  return useQuery(usersQueryOptions(input));
}
