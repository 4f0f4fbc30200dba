import { ZProvisionCertificates } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export function getProvisionCertificates(signal?: AbortSignal) {
  return apiRequest('GET /ui/admin/provision/certificates', ZProvisionCertificates, { signal });
}

export function provisionCertificatesQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'provision', 'certificates'],
    queryFn: ({ signal }) => getProvisionCertificates(signal),
  });
}

export function useProvisionCertificates() {
  return useQuery(provisionCertificatesQueryOptions());
}
