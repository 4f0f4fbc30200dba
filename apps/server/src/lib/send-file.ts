import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { attachmentDisposition } from './file-names.js';

/**
 * Answers a stored file as a download: an attachment under its name, never sniffed or cached,
 * with its SHA-256; `length` only when it is certain before the last byte (otherwise chunked, so
 * a stream that fails midway aborts the answer instead of completing it).
 */
export function sendFile(
  reply: FastifyReply,
  file: { fileName: string; sha256: string; stream: Readable; length?: number | undefined },
): FastifyReply {
  reply
    .header('content-type', 'application/octet-stream')
    .header('content-disposition', attachmentDisposition(file.fileName))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .header('x-content-sha256', file.sha256);
  if (file.length !== undefined) reply.header('content-length', String(file.length));
  return reply.send(file.stream);
}
