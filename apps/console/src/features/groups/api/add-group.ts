import { ZGroup, type TGroup } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZAddGroupInput = z.object({
  name: z.string(),
  description: z.string(),
  members: z.array(z.string()),
});
export type AddGroupInput = z.infer<typeof ZAddGroupInput>;

export function addGroup(input: AddGroupInput): Promise<TGroup> {
  return apiRequest('POST /ui/groups/add', ZGroup, { body: ZAddGroupInput.parse(input) });
}

export function useAddGroup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addGroup,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['groups'] }),
  });
}
