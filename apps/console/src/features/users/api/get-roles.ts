import { ZRolesResponse } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getRoles(signal?: AbortSignal) {
  return apiRequest('GET /ui/user/roles', ZRolesResponse, { signal });
}

export function rolesQueryOptions() {
  return queryOptions({ queryKey: ['users', 'roles'], queryFn: ({ signal }) => getRoles(signal) });
}

export function useRoles() {
  return useQuery(rolesQueryOptions());
}
