import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZDeletePackageInput = z.object({ dsiId: z.string() });
export type DeletePackageInput = z.infer<typeof ZDeletePackageInput>;

export function deletePackage(input: DeletePackageInput) {
  return apiRequest('POST /ui/package/delete', ZEmpty, { body: ZDeletePackageInput.parse(input) });
}

export function useDeletePackage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deletePackage,
    onSuccess: (_result, input) => {
      queryClient.removeQueries({ queryKey: ['packages', 'detail', input.dsiId] });
      return queryClient.invalidateQueries({ queryKey: ['packages', 'list'] });
    },
  });
}
