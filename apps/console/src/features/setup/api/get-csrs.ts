import { csrKinds, services, ZCsrResponse, type TCsrResponse } from '@manifold/contract';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export const ZGetCsrsInput = z.object({ csr: z.enum(csrKinds), service: z.enum(services) });
export type GetCsrsInput = z.infer<typeof ZGetCsrsInput>;

/**
 * The certificate signing requests of the server's key pairs. Fetched on demand (a download),
 * never cached: a re-key makes earlier requests useless.
 */
export function getCsrs(input: GetCsrsInput): Promise<TCsrResponse> {
  return apiRequest('GET /ui/admin/provision', ZCsrResponse, { query: ZGetCsrsInput.parse(input) });
}

export function useGetCsrs() {
  return useMutation({ mutationFn: getCsrs });
}
