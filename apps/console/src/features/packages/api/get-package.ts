import { ZPackageDetail } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getPackage(dsiId: string, signal?: AbortSignal) {
  return apiRequest('GET /ui/package/fetch', ZPackageDetail, { query: { dsiId }, signal });
}

export function packageQueryKey(dsiId: string) {
  return ['packages', 'detail', dsiId] as const;
}

export function packageQueryOptions(dsiId: string) {
  return queryOptions({ queryKey: packageQueryKey(dsiId), queryFn: ({ signal }) => getPackage(dsiId, signal) });
}

export function usePackage(dsiId: string) {
  return useQuery(packageQueryOptions(dsiId));
}
