import { ZDeviceDetail } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getDevice(deviceId: string, signal?: AbortSignal) {
  return apiRequest('GET /ui/device/fetch', ZDeviceDetail, { query: { deviceId }, signal });
}

export function deviceQueryKey(deviceId: string) {
  return ['devices', 'detail', deviceId] as const;
}

export function deviceQueryOptions(deviceId: string) {
  return queryOptions({ queryKey: deviceQueryKey(deviceId), queryFn: ({ signal }) => getDevice(deviceId, signal) });
}

export function useDevice(deviceId: string) {
  return useQuery(deviceQueryOptions(deviceId));
}
