import { ZLicensingStatus, type TLicensingStatus } from '@manifold/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest, apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

export const licensingStatusQueryKey = ['admin', 'licensing'] as const;

export function licensingStatusQueryOptions() {
  return queryOptions({
    queryKey: licensingStatusQueryKey,
    queryFn: ({ signal }) => apiRequest('GET /ui/admin/licensing/status', ZLicensingStatus, { signal }),
  });
}

export function useLicensingStatus() {
  return useQuery(licensingStatusQueryOptions());
}

/** Uploads a licence file, with progress; answers the new status. */
export function uploadLicence(file: File, context: UploadContext): Promise<TLicensingStatus> {
  return apiUpload('POST /ui/admin/upload/licensing', ZLicensingStatus, {
    fields: { file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
