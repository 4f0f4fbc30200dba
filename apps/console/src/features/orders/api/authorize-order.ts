import { ZAuthorizeRequest, ZAuthorizeResponse, type TAuthorizeRequest } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { invalidateTagged } from '../../../lib/query-tags';

/** `authorization/authorize`: every problem comes back at once (418), each naming its field. */
export function authorizeOrder(input: TAuthorizeRequest) {
  return apiRequest('POST /ui/authorization/authorize', ZAuthorizeResponse, { body: ZAuthorizeRequest.parse(input) });
}

export function useAuthorizeOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: authorizeOrder,
    onSuccess: () => invalidateTagged(queryClient, 'licensing'),
  });
}
