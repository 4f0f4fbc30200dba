import { ZEmpty, ZSsoConfig, ZSsoProvider, type TSsoProviderSaveRequest } from '@manifold/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function ssoConfigQueryOptions() {
  return queryOptions({
    queryKey: ['sso', 'config'],
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/sso', ZSsoConfig, { signal }),
  });
}

export function useSsoConfig() {
  return useQuery(ssoConfigQueryOptions());
}

export function useSaveSsoProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TSsoProviderSaveRequest) => apiRequest('POST /ui/admin/sso/provider', ZSsoProvider, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sso'] }),
  });
}

export function useDeleteSsoProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string }) => apiRequest('POST /ui/admin/sso/delete', ZEmpty, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sso'] }),
  });
}
