import { ZDevice, ZPage } from '@manifold/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

export const ZGetDevicesInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
  /** true: approved machines only; false: every other state; undefined: all. */
  approved: z.boolean().optional(),
});
export type GetDevicesInput = z.infer<typeof ZGetDevicesInput>;

const ZDevicePage = ZPage(ZDevice);

export function getDevices(input: GetDevicesInput, signal?: AbortSignal) {
  const { approved, ...paging } = ZGetDevicesInput.parse(input);
  return apiRequest('GET /ui/device/list', ZDevicePage, { query: { ...paging, approved }, signal });
}

export function devicesQueryOptions(input: GetDevicesInput) {
  return pagedListQueryOptions(['devices', 'list', input], (signal) => getDevices(input, signal));
}

export function useDevices(input: GetDevicesInput) {
  return useQuery(devicesQueryOptions(input));
}
