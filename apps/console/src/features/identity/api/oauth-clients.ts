import {
  ZEmpty,
  ZOauthClient,
  ZOauthClientCreated,
  ZPage,
  type TOauthClientAddRequest,
  type TPageQuery,
} from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

const ZOauthClientPage = ZPage(ZOauthClient);

export function oauthClientsQueryOptions(input: TPageQuery) {
  return pagedListQueryOptions(['oauth-clients', 'list', input], (signal) =>
    apiRequest('GET /ui/client/list', ZOauthClientPage, { query: input, signal }),
  );
}

export function useOauthClients(input: TPageQuery) {
  return useQuery(oauthClientsQueryOptions(input));
}

/** Adds a client; the answer carries its secret, the only time it is shown. */
export function useAddOauthClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TOauthClientAddRequest) => apiRequest('POST /ui/client/add', ZOauthClientCreated, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['oauth-clients'] }),
  });
}

export function useDeleteOauthClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { clientId: string }) => apiRequest('POST /ui/client/delete', ZEmpty, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['oauth-clients'] }),
  });
}
