import { StorageLimitError } from '../storage/storage.js';
import { AppError } from './app-error.js';

/**
 * What a failed upload answers when its bytes could not be stored: over the limit 413
 * `payloadTooLarge`, any other failure of the storage (a full disk, a bucket gone, access denied
 * by the provider) 420 `storageTypeWriteError` naming `field`. The client's own faults arrive as
 * `AppError`s and pass through: a form cut off or left before its end fails the file's stream
 * with 400 `malformedRequest` (`formFileStream`, `readSmallFile` in lib/multipart-parts.ts), so
 * nothing the storage throws is taken for the client's fault.
 */
export function uploadError(error: unknown, field = 'file'): Error {
  if (error instanceof AppError) return error;
  if (error instanceof StorageLimitError) {
    return new AppError('payloadTooLarge', {
      field,
      description: `The file exceeds the upload limit of ${error.maxBytes} bytes`,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError('storageTypeWriteError', { field, description: `The file could not be stored: ${reason.slice(0, 200)}` });
}
