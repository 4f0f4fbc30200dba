import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZDeleteGroupInput = z.object({ userGroupId: z.number().int() });
export type DeleteGroupInput = z.infer<typeof ZDeleteGroupInput>;

export function deleteGroup(input: DeleteGroupInput) {
  return apiRequest('POST /ui/groups/delete', ZEmpty, { body: ZDeleteGroupInput.parse(input) });
}

export function useDeleteGroup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteGroup,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['groups'] }),
  });
}
