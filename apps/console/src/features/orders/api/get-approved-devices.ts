import { ZDevice, ZDeviceDetail, ZPage } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const ZDevicePage = ZPage(ZDevice);

/** The approved machines an authorization may target (the list's largest page). */
export function approvedDevicesQueryOptions() {
  const query = { pageNum: 1, numberOfItems: 500, approved: true };
  return queryOptions({
    queryKey: ['devices', 'list', query],
    queryFn: ({ signal }) => apiRequest('GET /ui/device/list', ZDevicePage, { query, signal }),
  });
}

export function useApprovedDevices() {
  return useQuery(approvedDevicesQueryOptions());
}

/** A machine with its parameters: the second bound of the parameter editor. */
export function deviceParametersQueryOptions(deviceId: string) {
  return queryOptions({
    queryKey: ['devices', 'detail', deviceId],
    queryFn: ({ signal }) => apiRequest('GET /ui/device/fetch', ZDeviceDetail, { query: { deviceId }, signal }),
  });
}

export function useDeviceParameters(deviceId: string | null) {
  return useQuery({ ...deviceParametersQueryOptions(deviceId ?? ''), enabled: deviceId !== null });
}
