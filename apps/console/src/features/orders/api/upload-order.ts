import { ZOrderIdResponse } from '@manifold/contract';
import { apiUpload } from '../../../lib/api-client';
import type { UploadContext } from '../../../lib/upload-tray';

/** `order/upload`: the policy list as a JSON file, with progress through the upload tray. */
export function uploadOrder(file: File, context: UploadContext) {
  return apiUpload('POST /ui/order/upload', ZOrderIdResponse, {
    fields: { file },
    onProgress: context.onProgress,
    signal: context.signal,
  });
}
