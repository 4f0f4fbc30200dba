import { ZAuthenticator, ZEmpty, ZPage, ZWebAuthnOptions } from '@manifold/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { pagedListQueryOptions } from '../../../lib/paging';
import { createCredential } from '../../../lib/webauthn';

const ZAuthenticatorPage = ZPage(ZAuthenticator);
const securityKeysKey = ['security-keys'] as const;

export function getSecurityKeys(pageNum: number, numberOfItems: number, signal?: AbortSignal) {
  return apiRequest('GET /ui/authenticators/list', ZAuthenticatorPage, { query: { pageNum, numberOfItems }, signal });
}

export function useSecurityKeys(pageNum: number, numberOfItems: number) {
  return useQuery(
    pagedListQueryOptions([...securityKeysKey, pageNum, numberOfItems], (signal) =>
      getSecurityKeys(pageNum, numberOfItems, signal),
    ),
  );
}

/** Registers a new key: the server's creation options, the browser's ceremony, the server's check. */
export async function addSecurityKey(name: string) {
  const options = await apiRequest('POST /ui/authenticators/attestation-options/generate', ZWebAuthnOptions);
  const credential = await createCredential(options);
  return apiRequest('POST /ui/authenticators/add', ZAuthenticator, { body: { name, credential } });
}

export function useAddSecurityKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addSecurityKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeysKey }),
  });
}

export function useDeleteSecurityKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (authenticatorId: string) => apiRequest('POST /ui/authenticators/delete', ZEmpty, { body: { authenticatorId } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeysKey }),
  });
}
