import { ZDevice, type TDevice } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZApproveDeviceInput = z.object({ deviceId: z.string(), approve: z.boolean() });
export type ApproveDeviceInput = z.infer<typeof ZApproveDeviceInput>;

/** Approves (true) or rejects (false) a machine's registration. */
export function approveDevice(input: ApproveDeviceInput): Promise<TDevice> {
  return apiRequest('POST /ui/device/approve', ZDevice, { body: ZApproveDeviceInput.parse(input) });
}

export function useApproveDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: approveDevice,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['devices'] }),
  });
}
