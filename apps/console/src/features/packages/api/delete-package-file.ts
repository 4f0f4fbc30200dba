import { ZEmpty } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { packageQueryKey } from './get-package';

export const ZDeletePackageFileInput = z.object({ fileId: z.string(), dsiId: z.string() });
export type DeletePackageFileInput = z.infer<typeof ZDeletePackageFileInput>;

export function deletePackageFile(input: DeletePackageFileInput) {
  const { fileId } = ZDeletePackageFileInput.parse(input);
  return apiRequest('POST /ui/package/files/delete', ZEmpty, { body: { fileId } });
}

export function useDeletePackageFile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deletePackageFile,
    onSuccess: (_result, input) => queryClient.invalidateQueries({ queryKey: packageQueryKey(input.dsiId) }),
  });
}
