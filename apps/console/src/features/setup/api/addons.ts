import { ZAddonList, type TAddon } from '@manifold/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { consoleConfigQueryKey } from '../../../lib/console-config';

const addonsQueryKey = ['admin', 'addons'] as const;

export function addonsQueryOptions() {
  return queryOptions({
    queryKey: addonsQueryKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/addons', ZAddonList, { signal }),
  });
}

export function useAddons() {
  return useQuery(addonsQueryOptions());
}

export function useSaveAddons() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (data: TAddon[]) => apiRequest('POST /ui/admin/addons', ZAddonList, { body: { data } }),
    onSuccess: (saved) => {
      queryClient.setQueryData(addonsQueryKey, saved);
      void queryClient.invalidateQueries({ queryKey: consoleConfigQueryKey });
    },
  });
}
