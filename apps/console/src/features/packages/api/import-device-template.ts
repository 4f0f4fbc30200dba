import { ZDeviceTemplate, type TDeviceTemplate } from '@manifold/contract';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

/** Imports a device template (JSON of the template format) and attaches it to the package. */
export function importDeviceTemplate(dsiId: string, file: File, context: UploadContext): Promise<TDeviceTemplate> {
  return apiUpload('POST /ui/package/device-template/import', ZDeviceTemplate, {
    fields: { dsiId, file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
