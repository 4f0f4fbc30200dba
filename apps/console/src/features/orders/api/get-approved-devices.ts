import { useQuery } from '@tanstack/react-query';
import { approvedDevicePickerQueryOptions, pickedDeviceQueryOptions } from '../../../lib/pickers';

/** The approved machines an authorization may target, as the server finds them for `search`. */
export function approvedDevicesQueryOptions(search = '') {
  return approvedDevicePickerQueryOptions(search);
}

/** A machine with its parameters: the second bound of the parameter editor. */
export function useDeviceParameters(deviceId: string | null) {
  return useQuery({ ...pickedDeviceQueryOptions(deviceId ?? ''), enabled: deviceId !== null });
}
