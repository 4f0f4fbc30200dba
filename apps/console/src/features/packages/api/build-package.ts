import { ZDsiEntry, type TDsiEntry } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZBuildPackageInput = z.object({ dsiId: z.string() });
export type BuildPackageInput = z.infer<typeof ZBuildPackageInput>;

/** Freezes the package into a signed revision (a DSI entry of the design archive). */
export function buildPackage(input: BuildPackageInput): Promise<TDsiEntry> {
  return apiRequest('POST /ui/package/build', ZDsiEntry, { body: ZBuildPackageInput.parse(input) });
}

export function useBuildPackage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: buildPackage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['packages'] }),
  });
}
