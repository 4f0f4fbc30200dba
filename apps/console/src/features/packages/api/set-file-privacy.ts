import { ZPackageFile, type TPackageFile } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZSetFilePrivacyInput = z.object({ fileId: z.string(), isPublic: z.boolean() });
export type SetFilePrivacyInput = z.infer<typeof ZSetFilePrivacyInput>;

export function setFilePrivacy(input: SetFilePrivacyInput): Promise<TPackageFile> {
  return apiRequest('POST /ui/package/files/privacy', ZPackageFile, { body: ZSetFilePrivacyInput.parse(input) });
}

export function useSetFilePrivacy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setFilePrivacy,
    onSuccess: (file) => queryClient.invalidateQueries({ queryKey: ['packages', 'detail', file.dsiId] }),
  });
}
