import { ZOrderDetail } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZEditOrderGroupsInput = z.object({ orderId: z.string(), groupIds: z.array(z.number().int().min(1)) });
export type EditOrderGroupsInput = z.infer<typeof ZEditOrderGroupsInput>;

export function editOrderGroups(input: EditOrderGroupsInput) {
  return apiRequest('POST /ui/order/edit-groups', ZOrderDetail, { body: ZEditOrderGroupsInput.parse(input) });
}

export function useEditOrderGroups() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: editOrderGroups, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['orders'] }) });
}
