import { ZPage, ZUserProfile } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

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
  return pagedListQueryOptions(['users', 'list', input], (signal) => getUsers(input, signal), 'users');
}

export function useUsers(input: GetUsersInput) {
  return useQuery(usersQueryOptions(input));
}
