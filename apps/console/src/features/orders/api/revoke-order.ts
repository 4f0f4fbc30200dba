import { ZOrder } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { invalidateTagged } from '../../../lib/query-tags';

export const ZRevokeOrderInput = z.object({ orderId: z.string(), includeAuthorized: z.boolean() });
export type RevokeOrderInput = z.infer<typeof ZRevokeOrderInput>;

export function revokeOrder(input: RevokeOrderInput) {
  return apiRequest('POST /ui/order/revoke', ZOrder, { body: ZRevokeOrderInput.parse(input) });
}

export function useRevokeOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeOrder,
    onSuccess: () => invalidateTagged(queryClient, 'licensing'),
  });
}
