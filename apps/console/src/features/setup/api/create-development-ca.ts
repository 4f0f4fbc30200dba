import { ZProvisionCertificates } from '@manifold/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { provisionCertificatesQueryOptions } from './get-provision-certificates';

/** DEVELOPMENT ONLY: a local network CA signs and installs both of the server's certificates. */
export function createDevelopmentCa() {
  return apiRequest('POST /ui/admin/provision/development-ca', ZProvisionCertificates, { body: {} });
}

export function useCreateDevelopmentCa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDevelopmentCa,
    onSuccess: async (certificates) => {
      queryClient.setQueryData(provisionCertificatesQueryOptions().queryKey, certificates);
      await queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });
}
