import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZDeleteDeviceInput = z.object({ deviceId: z.string(), forceDelete: z.boolean() });
export type DeleteDeviceInput = z.infer<typeof ZDeleteDeviceInput>;

export function deleteDevice(input: DeleteDeviceInput) {
  return apiRequest('POST /ui/device/delete', ZEmpty, { body: ZDeleteDeviceInput.parse(input) });
}

export function useDeleteDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteDevice,
    onSuccess: (_result, input) => {
      queryClient.removeQueries({ queryKey: ['devices', 'detail', input.deviceId] });
      return queryClient.invalidateQueries({ queryKey: ['devices', 'list'] });
    },
  });
}
