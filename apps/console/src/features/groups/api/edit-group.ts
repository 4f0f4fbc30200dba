import { ZGroup, type TGroup } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZEditGroupInput = z.object({
  userGroupId: z.number().int(),
  name: z.string().optional(),
  description: z.string().optional(),
  members: z.array(z.string()).optional(),
});
export type EditGroupInput = z.infer<typeof ZEditGroupInput>;

export function editGroup(input: EditGroupInput): Promise<TGroup> {
  return apiRequest('POST /ui/groups/edit', ZGroup, { body: ZEditGroupInput.parse(input) });
}

export function useEditGroup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: editGroup,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['groups'] }),
  });
}
