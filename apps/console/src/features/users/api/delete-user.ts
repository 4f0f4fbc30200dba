import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { invalidateTagged } from '../../../lib/query-tags';

export const ZDeleteUserInput = z.object({ username: z.string() });
export type DeleteUserInput = z.infer<typeof ZDeleteUserInput>;

export function deleteUser(input: DeleteUserInput) {
  return apiRequest('POST /ui/user/delete', ZEmpty, { body: ZDeleteUserInput.parse(input) });
}

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteUser,
    onSuccess: () => invalidateTagged(queryClient, 'users'),
  });
}
