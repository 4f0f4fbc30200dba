import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ImageRow } from '../../db/schema-packages.js';
import { AppError } from '../../lib/app-error.js';
import { isoNow } from '../../lib/time.js';
import { uploadError } from '../../lib/upload-errors.js';
import type { Storage } from '../../storage/storage.js';

/** Largest image a package or a machine may show. */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Largest image a machine may send inside its registration. */
export const REGISTRATION_IMAGE_MAX_BYTES = 256 * 1024;

export type ImageKind = { contentType: 'image/png' | 'image/jpeg' | 'image/webp'; extension: 'png' | 'jpg' | 'webp' };

/** Recognises PNG, JPEG and WebP by their first bytes; anything else is not an image we serve. */
export function sniffImage(bytes: Buffer): ImageKind | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { contentType: 'image/png', extension: 'png' };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { contentType: 'image/jpeg', extension: 'jpg' };
  }
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') {
    return { contentType: 'image/webp', extension: 'webp' };
  }
  return undefined;
}

const dataUrlPattern = /^data:image\/(png|jpeg|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** The bytes of a `data:image/(png|jpeg|webp);base64,…` URL, or undefined when it is not one. */
export function decodeImageDataUrl(value: string): Buffer | undefined {
  const match = dataUrlPattern.exec(value);
  return match ? Buffer.from(match[2]!, 'base64') : undefined;
}

/**
 * Writes an image's bytes to storage after checking its type and size; answers the row to
 * insert (in the caller's transaction). `imageTypeNotSupported` for anything but PNG/JPEG/WebP;
 * `storageTypeWriteError` naming `field` when the storage fails.
 */
export async function storeImage(
  storage: Storage,
  bytes: Buffer,
  ownerKind: ImageRow['owner_kind'],
  maxBytes = IMAGE_MAX_BYTES,
  field = 'file',
): Promise<ImageRow> {
  const kind = sniffImage(bytes);
  if (!kind) throw new AppError('imageTypeNotSupported', { field });
  if (bytes.length > maxBytes) {
    throw new AppError('payloadTooLarge', { field, description: `Images may have at most ${maxBytes} bytes` });
  }
  const stored = await storage.put(Readable.from([bytes])).catch((error: unknown) => {
    throw uploadError(error, field);
  });
  return {
    name: `${randomBytes(16).toString('hex')}.${kind.extension}`,
    owner_kind: ownerKind,
    content_type: kind.contentType,
    size: stored.size,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    storage_key: stored.key,
    created_at: isoNow(),
  };
}
