import { ZServerConfig, type TServerConfig } from '@manifold/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { consoleConfigQueryKey } from '../../../lib/console-config';

export const serverConfigQueryKey = ['admin', 'server'] as const;

export function serverConfigQueryOptions() {
  return queryOptions({
    queryKey: serverConfigQueryKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/server', ZServerConfig, { signal }),
  });
}

export function useServerConfig() {
  return useQuery(serverConfigQueryOptions());
}

/** Saves the server settings; the brand and the offered screens follow at once. */
export function useSaveServerConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (config: TServerConfig) => apiRequest('POST /ui/admin/server', ZServerConfig, { body: config }),
    onSuccess: (saved) => {
      queryClient.setQueryData(serverConfigQueryKey, saved);
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
      void queryClient.invalidateQueries({ queryKey: consoleConfigQueryKey });
    },
  });
}
