import { ZOrdersChanged } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZArchiveOrdersInput = z.object({ orderIds: z.array(z.string()).min(1), archive: z.boolean() });
export type ArchiveOrdersInput = z.infer<typeof ZArchiveOrdersInput>;

/** Archives (`order/archive`) or restores (`order/restore`) orders. */
export function archiveOrders(input: ArchiveOrdersInput) {
  const { orderIds, archive } = ZArchiveOrdersInput.parse(input);
  const list = orderIds.map((orderId) => ({ orderId }));
  return archive
    ? apiRequest('POST /ui/order/archive', ZOrdersChanged, { body: { archiveOrders: list } })
    : apiRequest('POST /ui/order/restore', ZOrdersChanged, { body: { restoreOrders: list } });
}

export function useArchiveOrders() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: archiveOrders, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['orders'] }) });
}
