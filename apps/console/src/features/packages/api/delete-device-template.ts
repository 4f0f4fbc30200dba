import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZDeleteDeviceTemplateInput = z.object({ deviceTemplateId: z.string() });
export type DeleteDeviceTemplateInput = z.infer<typeof ZDeleteDeviceTemplateInput>;

export function deleteDeviceTemplate(input: DeleteDeviceTemplateInput) {
  return apiRequest('POST /ui/package/device-template/delete', ZEmpty, { body: ZDeleteDeviceTemplateInput.parse(input) });
}

export function useDeleteDeviceTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteDeviceTemplate,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['packages'] }),
  });
}
