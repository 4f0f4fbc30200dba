import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/app-error.js';

/** Certificates (with chains) are small; anything larger is refused while it streams in. */
export const CERTIFICATE_UPLOAD_MAX_BYTES = 256 * 1024;

export interface ProvisionUpload {
  certificateType: string | undefined;
  /** The `file` part as text; undefined when the form has none. */
  pem: string | undefined;
}

interface MultipartError {
  code?: unknown;
}

/** Reads the `admin/upload/provision` form (fields `file` and `certificateType`, in any order). */
export async function readProvisionUpload(request: FastifyRequest): Promise<ProvisionUpload> {
  if (!request.isMultipart()) {
    throw new AppError('malformedRequest', {
      status: 400,
      description: 'Send multipart/form-data with the fields file (PEM) and certificateType (signing, encryption or trustAnchor)',
    });
  }
  const upload: ProvisionUpload = { certificateType: undefined, pem: undefined };
  try {
    const parts = request.parts({
      limits: { fileSize: CERTIFICATE_UPLOAD_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 8 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        const content = await part.toBuffer();
        if (part.fieldname === 'file') upload.pem = content.toString('utf8');
      } else if (part.fieldname === 'certificateType' && typeof part.value === 'string') {
        upload.certificateType = part.value;
      }
    }
  } catch (error) {
    throw multipartFailure(error);
  }
  return upload;
}

/** Only the form is read in that loop: anything it throws is the client's form, never a 500. */
function multipartFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const { code } = (typeof error === 'object' && error !== null ? error : {}) as MultipartError;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('payloadTooLarge', {
      status: 413,
      field: 'file',
      description: `The certificate file is larger than ${CERTIFICATE_UPLOAD_MAX_BYTES / 1024} KiB`,
    });
  }
  const message = error instanceof Error ? error.message : 'unreadable form';
  return new AppError('malformedRequest', {
    status: 400,
    description: `The multipart form cannot be read (${message}): send one file field and certificateType`,
  });
}
