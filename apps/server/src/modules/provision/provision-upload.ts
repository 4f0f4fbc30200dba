import type { FastifyRequest } from 'fastify';
import { readSmallForm } from '../../lib/multipart-parts.js';

/** Certificates (with chains) are small; anything larger is refused while it streams in. */
export const CERTIFICATE_UPLOAD_MAX_BYTES = 256 * 1024;

export interface ProvisionUpload {
  certificateType: string | undefined;
  /** The `file` part as text; undefined when the form has none. */
  pem: string | undefined;
}

/** Reads the `admin/upload/provision` form (fields `file` and `certificateType`, in any order). */
export async function readProvisionUpload(request: FastifyRequest): Promise<ProvisionUpload> {
  // one byte over the limit lets the reader tell "too large" from "exactly at the limit"
  const limits = { fileSize: CERTIFICATE_UPLOAD_MAX_BYTES + 1, files: 1, fields: 5, fieldSize: 1024, parts: 8 };
  const form = await readSmallForm(request, CERTIFICATE_UPLOAD_MAX_BYTES, limits);
  return { certificateType: form.fields.certificateType, pem: form.file?.toString('utf8') };
}
