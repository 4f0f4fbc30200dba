import { ZDeviceTemplate, ZPage } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const ZTemplatePage = ZPage(ZDeviceTemplate);

/** Templates of the library (attached to no package) a device step may also apply. */
export function getDeviceTemplates(name: string | undefined, signal?: AbortSignal) {
  return apiRequest('GET /ui/package/device-template/list', ZTemplatePage, {
    query: { pageNum: 1, numberOfItems: 100, name: name || null },
    signal,
  });
}

export function deviceTemplatesQueryOptions(name?: string) {
  return queryOptions({
    queryKey: ['packages', 'device-templates', name ?? ''],
    queryFn: ({ signal }) => getDeviceTemplates(name, signal),
  });
}

export function useDeviceTemplates(name?: string) {
  return useQuery(deviceTemplatesQueryOptions(name));
}
