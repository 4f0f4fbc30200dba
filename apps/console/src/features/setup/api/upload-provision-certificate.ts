import { uploadCertificateTypes, ZProvisionUploadResponse, type TProvisionUploadResponse } from '@manifold/contract';
import { z } from 'zod';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

export const ZUploadCertificateType = z.enum(uploadCertificateTypes);
export type UploadCertificateType = z.infer<typeof ZUploadCertificateType>;

/** Uploads a PEM certificate (and its chain) for a key pair, or network roots, with progress. */
export function uploadProvisionCertificate(
  certificateType: UploadCertificateType,
  file: File,
  context: UploadContext,
): Promise<TProvisionUploadResponse> {
  return apiUpload('POST /ui/admin/upload/provision', ZProvisionUploadResponse, {
    fields: { certificateType: ZUploadCertificateType.parse(certificateType), file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
