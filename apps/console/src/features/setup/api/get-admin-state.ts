import { ZAdminState } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getAdminState(signal?: AbortSignal) {
  return apiRequest('GET /ui/admin/state', ZAdminState, { signal });
}

export function adminStateQueryOptions() {
  return queryOptions({ queryKey: ['admin', 'state'], queryFn: ({ signal }) => getAdminState(signal) });
}

export function useAdminState() {
  return useQuery(adminStateQueryOptions());
}
