import { ZPackage, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

export const ZGetPackagesInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  name: z.string().max(256).optional(),
});
export type GetPackagesInput = z.infer<typeof ZGetPackagesInput>;

const ZPackagePage = ZPage(ZPackage);

export function getPackages(input: GetPackagesInput, signal?: AbortSignal) {
  const { name, ...paging } = ZGetPackagesInput.parse(input);
  return apiRequest('GET /ui/package/list', ZPackagePage, { query: { ...paging, name: name || null }, signal });
}

export function packagesQueryOptions(input: GetPackagesInput) {
  return pagedListQueryOptions(['packages', 'list', input], (signal) => getPackages(input, signal));
}

export function usePackages(input: GetPackagesInput) {
  return useQuery(packagesQueryOptions(input));
}
