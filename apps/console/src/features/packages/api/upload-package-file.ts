import { ZPackageFile, type TClassification, type TPackageFile } from '@manifold/contract';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

/**
 * Streams a design file to the package (dsiId, isPublic and the CUI/FCI label go before the file,
 * as the server reads them; no label is left out).
 */
export function uploadPackageFile(
  dsiId: string,
  isPublic: boolean,
  classification: TClassification | null,
  file: File,
  context: UploadContext,
): Promise<TPackageFile> {
  return apiUpload('POST /ui/package/files/upload', ZPackageFile, {
    fields: { dsiId, isPublic, classification, file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
