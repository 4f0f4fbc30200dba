import { ZOrderIdResponse } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

/** The policy list as the user pasted it: parsed JSON, checked by the server (spec §5 order add). */
export const ZAddOrderInput = z.object({ authorizationAuthorizedPolicyList: z.unknown() });
export type AddOrderInput = z.infer<typeof ZAddOrderInput>;

export function addOrder(input: AddOrderInput) {
  return apiRequest('POST /ui/order/add', ZOrderIdResponse, { body: ZAddOrderInput.parse(input) });
}

export function useAddOrder() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: addOrder, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['orders'] }) });
}
