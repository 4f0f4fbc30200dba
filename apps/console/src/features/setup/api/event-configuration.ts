import { ZEventConfiguration, type TEventConfigurationUpdate } from '@manifold/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

const eventConfigurationQueryKey = ['admin', 'event'] as const;

export function eventConfigurationQueryOptions() {
  return queryOptions({
    queryKey: eventConfigurationQueryKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/event', ZEventConfiguration, { signal }),
  });
}

export function useEventConfiguration() {
  return useQuery(eventConfigurationQueryOptions());
}

export function useSaveEventConfiguration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TEventConfigurationUpdate) => apiRequest('POST /ui/admin/event', ZEventConfiguration, { body }),
    onSuccess: (saved) => queryClient.setQueryData(eventConfigurationQueryKey, saved),
  });
}
