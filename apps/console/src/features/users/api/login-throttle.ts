import { ZEmpty, ZLoginThrottleEntry, ZPage } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

export const ZLoginThrottleInput = z.object({
  pageNum: z.number().int().min(1),
  numberOfItems: z.number().int().min(1).max(500),
});
export type LoginThrottleInput = z.infer<typeof ZLoginThrottleInput>;

const ZLoginThrottlePage = ZPage(ZLoginThrottleEntry);

export function getLoginThrottle(input: LoginThrottleInput, signal?: AbortSignal) {
  return apiRequest('GET /ui/admin/login-throttle', ZLoginThrottlePage, { query: ZLoginThrottleInput.parse(input), signal });
}

const loginThrottleKey = ['users', 'login-throttle'] as const;

export function useLoginThrottle(input: LoginThrottleInput) {
  return useQuery(pagedListQueryOptions([...loginThrottleKey, input], (signal) => getLoginThrottle(input, signal)));
}

export function useClearLoginThrottle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => apiRequest('POST /ui/admin/login-throttle/clear', ZEmpty, { body: { key } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: loginThrottleKey }),
  });
}
