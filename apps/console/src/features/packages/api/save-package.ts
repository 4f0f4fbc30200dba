import { ZPackage, type TPackage } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

/** Create (no dsiId) or update (dsiId and the version that was read). */
export const ZSavePackageInput = z.object({
  dsiId: z.string().optional(),
  version: z.number().int().optional(),
  designName: z.string(),
  description: z.string(),
  companyName: z.string(),
  multiPlaten: z.boolean(),
  /** null clears the image, a data URL replaces it, undefined keeps it. */
  displayImage: z.string().nullable().optional(),
});
export type SavePackageInput = z.infer<typeof ZSavePackageInput>;

export function savePackage(input: SavePackageInput): Promise<TPackage> {
  return apiRequest('POST /ui/package/info', ZPackage, { body: ZSavePackageInput.parse(input) });
}

export function useSavePackage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: savePackage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['packages'] }),
  });
}
