import { ZDevice, type TDevice } from '@manifold/contract';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

/** Sets the machine's picture (PNG, JPEG or WebP). */
export function uploadDeviceImage(deviceId: string, file: File, context: UploadContext): Promise<TDevice> {
  return apiUpload('POST /ui/device/image', ZDevice, {
    fields: { deviceId, file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
