import { keyTypes, ZProvisionResponse, type TProvisionResponse } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZProvisionKeysInput = z.object({ keyType: z.enum(keyTypes), rekey: z.boolean() });
export type ProvisionKeysInput = z.infer<typeof ZProvisionKeysInput>;

/** Creates the signing and encryption key pairs; `rekey` replaces existing ones and drops their certificates. */
export function provisionKeys(input: ProvisionKeysInput): Promise<TProvisionResponse> {
  return apiRequest('POST /ui/admin/provision', ZProvisionResponse, { body: ZProvisionKeysInput.parse(input) });
}

export function useProvisionKeys() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: provisionKeys,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin'] }),
  });
}
