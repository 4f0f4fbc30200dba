import { ZVersion } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getVersion(signal?: AbortSignal) {
  return apiRequest('GET /ui/version', ZVersion, { signal });
}

export function versionQueryOptions() {
  return queryOptions({ queryKey: ['version'], queryFn: ({ signal }) => getVersion(signal) });
}

export function useVersion() {
  return useQuery(versionQueryOptions());
}
