import type { FastifyRequest } from 'fastify';
import { formParts, readSmallFile } from '../../lib/multipart-parts.js';

/** Certificates (with chains) are small; anything larger is refused while it streams in. */
export const CERTIFICATE_UPLOAD_MAX_BYTES = 256 * 1024;

export interface ProvisionUpload {
  certificateType: string | undefined;
  /** The `file` part as text; undefined when the form has none. */
  pem: string | undefined;
}

/** Reads the `admin/upload/provision` form (fields `file` and `certificateType`, in any order). */
export async function readProvisionUpload(request: FastifyRequest): Promise<ProvisionUpload> {
  const upload: ProvisionUpload = { certificateType: undefined, pem: undefined };
  // one byte over the limit lets the reader tell "too large" from "exactly at the limit"
  const limits = { fileSize: CERTIFICATE_UPLOAD_MAX_BYTES + 1, files: 1, fields: 5, fieldSize: 1024, parts: 8 };
  for await (const part of formParts(request, limits)) {
    if (part.type === 'file') {
      const content = await readSmallFile(part.file, CERTIFICATE_UPLOAD_MAX_BYTES, part.fieldname);
      if (part.fieldname === 'file') upload.pem = content.toString('utf8');
    } else if (part.fieldname === 'certificateType' && typeof part.value === 'string') {
      upload.certificateType = part.value;
    }
  }
  return upload;
}
