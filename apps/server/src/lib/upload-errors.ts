import { StorageLimitError } from '../storage/storage.js';
import { AppError } from './app-error.js';

/** What a failed streamed upload answers: over the limit 413, a storage failure its token, a broken stream 400. */
export function uploadError(error: unknown): Error {
  if (error instanceof AppError) return error;
  if (error instanceof StorageLimitError) {
    return new AppError('payloadTooLarge', { description: `The file exceeds the upload limit of ${error.maxBytes} bytes` });
  }
  const reason = error instanceof Error ? error.message : String(error);
  if (typeof error === 'object' && error !== null && 'syscall' in error) {
    return new AppError('storageTypeWriteError', { description: `The file could not be stored: ${reason}` });
  }
  return new AppError('malformedRequest', { field: 'file', description: `The upload was interrupted: ${reason}` });
}
