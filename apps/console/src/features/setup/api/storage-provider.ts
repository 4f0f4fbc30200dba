import {
  type TStorageProvider,
  type TStorageProviderRequest,
  ZDasConfig,
  ZStorageProvider,
  ZStorageProviderList,
  ZStorageProviderRequest,
  ZStorageTypeList,
  type TStorageType,
} from '@manifold/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

/** The selected storage provider, its settings that are no secret, and the progress of a move (keys are never answered). */
export function storageProviderQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'storage', 'provider'],
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/storage/provider', ZStorageProvider, { signal }),
  });
}

export function useStorageProvider() {
  return useQuery(storageProviderQueryOptions());
}

export function useStorageProviderList() {
  return useQuery({
    queryKey: ['admin', 'storage', 'provider', 'list'],
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/storage/provider/list', ZStorageProviderList, { signal }),
  });
}

/** Selects a provider: the server probes it before accepting; existing files move in the background. */
export function selectStorageProvider(input: TStorageProviderRequest): Promise<TStorageProvider> {
  return apiRequest('POST /ui/admin/storage/provider', ZStorageProvider, { body: ZStorageProviderRequest.parse(input) });
}

export function useSelectStorageProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: selectStorageProvider,
    onSuccess: (provider) => {
      queryClient.setQueryData(storageProviderQueryOptions().queryKey, provider);
      return queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });
}

export function useStorageTypes() {
  return useQuery({
    queryKey: ['admin', 'storage', 'types'],
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/storage/type/list', ZStorageTypeList, { signal }),
  });
}

export function useDasConfig() {
  return useQuery({
    queryKey: ['admin', 'das'],
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/das', ZDasConfig, { signal }),
  });
}

export function useSetDasConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => apiRequest('POST /ui/admin/das', ZDasConfig, { body: { enabled } }),
    onSuccess: (config) => queryClient.setQueryData(['admin', 'das'], config),
  });
}

/** Adds or changes storage types (types not listed stay). */
export function useSaveStorageTypes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (types: TStorageType[]) =>
      apiRequest('POST /ui/admin/storage/type/list', ZStorageTypeList, { body: { data: types } }),
    onSuccess: (types) => queryClient.setQueryData(['admin', 'storage', 'types'], types),
  });
}
