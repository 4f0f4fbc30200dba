import { pipeline, type Readable, type Transform } from 'node:stream';
import { StorageLimitError } from '../storage/storage.js';
import { AppError } from './app-error.js';

/** Pipes the stages together; an error in any stage destroys the others and surfaces on the last. */
export function chain(source: Readable, ...stages: Transform[]): Readable {
  return pipeline(source, ...(stages as [Transform]), () => undefined);
}

/**
 * What a failed streamed upload answers: over the limit 413 `payloadTooLarge`, a storage
 * failure `storageTypeWriteError`, a cut-off upload 400 `malformedRequest`; an `AppError` as is.
 */
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
