import { ZPackageFile, type TPackageFile } from '@manifold/contract';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

/** Streams a design file to the package (dsiId and isPublic go before the file, as the server reads them). */
export function uploadPackageFile(dsiId: string, isPublic: boolean, file: File, context: UploadContext): Promise<TPackageFile> {
  return apiUpload('POST /ui/package/files/upload', ZPackageFile, {
    fields: { dsiId, isPublic, file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
