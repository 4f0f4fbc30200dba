import { ZDevice, type TDevice } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZDisableDeviceInput = z.object({ deviceId: z.string(), disabled: z.boolean() });
export type DisableDeviceInput = z.infer<typeof ZDisableDeviceInput>;

/** Disables (suspends) a machine, or enables it again. */
export function disableDevice(input: DisableDeviceInput): Promise<TDevice> {
  return apiRequest('POST /ui/device/disable', ZDevice, { body: ZDisableDeviceInput.parse(input) });
}

export function useDisableDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: disableDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['devices'] }),
  });
}
