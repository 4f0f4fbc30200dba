import { ZEmpty, ZPage, ZTrustedIssuer, type TPageQuery } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';

const ZTrustedIssuerPage = ZPage(ZTrustedIssuer);

export function trustedIssuersQueryOptions(input: TPageQuery) {
  return pagedListQueryOptions(['trusted-issuers', 'list', input], (signal) =>
    apiRequest('GET /ui/authentication/list', ZTrustedIssuerPage, { query: input, signal }),
  );
}

export function useTrustedIssuers(input: TPageQuery) {
  return useQuery(trustedIssuersQueryOptions(input));
}

export function useAddTrustedIssuer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { issuer: string; jwkSetUri: string }) =>
      apiRequest('POST /ui/authentication/add', ZTrustedIssuer, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['trusted-issuers'] }),
  });
}

export function useDeleteTrustedIssuer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { issuer: string }) => apiRequest('POST /ui/authentication/delete', ZEmpty, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['trusted-issuers'] }),
  });
}
